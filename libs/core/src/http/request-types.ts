import type { Principal } from '../auth/principal';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    principal?: Principal;
  }
}

export {};
