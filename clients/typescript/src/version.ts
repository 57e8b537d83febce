/**
 * The client's version: the repository's VERSION file, copied here by
 * `make version` (docs/version_test.go checks they agree).
 */
export const VERSION = "0.1.0";

/** The header naming this client and its version to the server's log. */
export const CLIENT_HEADER = "x-toolguard-client";
