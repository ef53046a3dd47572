/** What a login, a second factor or a refresh hands out: a session's access and refresh tokens. */
export interface IssuedTokens {
  accountId: string;
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}
