/** The current terms-of-service version; every admin must have accepted exactly this one. */
export const TOS_VERSION = "2026-11-01";

/** A short plain-language summary of the terms, shown before an admin accepts them. */
export const TOS_SUMMARY =
  "You run Tollgate yourself and are responsible for the sites you put behind it, for the " +
  "visitors' data it handles (IP addresses and country codes, used only to queue, rate-limit and " +
  "block) and for keeping your TOKEN_SECRET, passwords and recovery phrases safe. The software " +
  "comes without warranty. Bumping this version asks every admin to accept again.";
