/** The running release; bump with CHANGELOG.md. */
export const VERSION = "0.6.0";
