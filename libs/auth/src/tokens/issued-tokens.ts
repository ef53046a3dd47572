/** What a login, a second factor, a refresh or a switch hands out: a session's access and refresh tokens. */
export interface IssuedTokens {
  /** The signed-in login. */
  loginId: string;
  /** The account the tokens act on. */
  accountId: string;
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}
