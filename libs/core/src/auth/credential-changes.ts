/**
 * The NOTIFY channel a database trigger sends an account id on whenever one of its API keys or
 * sessions changes or goes (revoked, expired early, deleted with the account), in the changing
 * transaction: every API process drops what it remembered of that account's credentials.
 */
export const CREDENTIAL_CHANGES_CHANNEL = 'credential_changes';
