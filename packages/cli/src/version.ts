/** The version of `@sluice/cli`, printed by `sluice --version`. */
export const VERSION = '0.1.0';
