/** The version of `@sluice/codegen`, written into the header of every generated file. */
export const CODEGEN_VERSION = '0.1.0';
