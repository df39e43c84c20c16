/** The running release; bump with CHANGELOG.md. */
export const VERSION = "0.7.3";
