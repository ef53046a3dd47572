import { createHash } from 'node:crypto';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { from, Observable, of } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { Problem } from '../errors/problem';
import { IdempotencyStore } from './idempotency.store';

const HTTP_CODE_METADATA = '__httpCode__';
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * Stripe-style Idempotency-Key on the POSTs marked @Idempotent(): the first response (status,
 * body, Location) is kept sealed for 24 hours per account and replayed for a retry with the same
 * key and body from the same API key or session; the same key with a different request or from
 * another credential is 422, and a retry while the first is still running is 409.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const header = req.headers['idempotency-key'];
    if (req.method !== 'POST' || header === undefined || !req.principal) return next.handle();
    if (typeof header !== 'string' || !KEY_SHAPE.test(header)) {
      throw Problem.invalidInput('Idempotency-Key must be 1 to 255 visible ASCII characters.', [
        { field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
    const { accountId, credentialId } = req.principal;
    const hash = createHash('sha256')
      .update(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
      .digest('hex');
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? 201;

    return from(this.store.claim(accountId, credentialId, header, hash)).pipe(
      mergeMap((earlier) => {
        if (!earlier) return this.runAndRemember(next, res, accountId, header, status);
        if (earlier.credentialId !== null && earlier.credentialId !== credentialId) {
          throw new Problem(422, 'idempotency_key_reused', 'This Idempotency-Key was used by another API key or session of the account.');
        }
        if (earlier.requestHash !== hash) {
          throw new Problem(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
        }
        if (!earlier.completed) {
          throw Problem.conflict('idempotency_key_in_progress', 'A request with this Idempotency-Key is still being processed.');
        }
        res.setHeader('Idempotent-Replayed', 'true');
        if (earlier.location) res.setHeader('Location', earlier.location);
        return of(earlier.body);
      }),
    );
  }

  private runAndRemember(next: CallHandler, res: Response, accountId: string, key: string, status: number): Observable<unknown> {
    return next.handle().pipe(
      mergeMap(async (body) => {
        const location = res.getHeader('Location');
        await this.store.complete(accountId, key, status, body, typeof location === 'string' ? location : null);
        return body;
      }),
      catchError(async (err) => {
        await this.store.release(accountId, key).catch(() => undefined);
        throw err;
      }),
    );
  }
}
