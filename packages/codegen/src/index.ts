/**
 * `@sluice/codegen`: TypeScript types for an OData service from its metadata (EDMX v2/v4, CSDL JSON), for
 * `createODataClient<Service>()` of `@sluice/odata`. Types only: the output adds nothing at run time.
 *
 * @packageDocumentation
 */
export { generate, check, readModel, type GenerateOptions, type CheckResult } from './generate.js';
export { CodegenError } from './errors.js';
export { generateRuntime } from './runtime.js';
export { identifier } from './names.js';
export { CODEGEN_VERSION } from './version.js';
export type { WriteKind } from './annotations.js';
export type {
  CgModel, CgType, CgStructured, CgEnum, CgTypeDefinition, CgProperty, CgNavigation, CgOperation, CgParameter, CgImport, CgEntitySet, SourcePlace, Doc,
} from './model.js';
