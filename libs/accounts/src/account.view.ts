/** An account as other areas see it: the row without its password hash. */
export interface AccountView {
  id: string;
  /** Stored lower-cased; unique. */
  email: string;
  name: string;
  /** Null until the address is confirmed through a mailed link. */
  emailVerifiedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
