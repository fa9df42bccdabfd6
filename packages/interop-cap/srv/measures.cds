using { interop } from '../db/measures';

@path: 'measures'
service MeasureService {
  entity Measures as projection on interop.Measures;
}
