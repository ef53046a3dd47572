import { urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { errorPage, sendPage } from '@app/core';

// Two passwords of at most 1024 characters (up to 12 bytes each once percent-encoded) and a token.
const parse = urlencoded({ extended: false, limit: '32kb', parameterLimit: 10 });

/**
 * The account pages' forms post `application/x-www-form-urlencoded`, as a browser sends them
 * without script; the API's JSON-only rule covers /api/* alone. Errors are pages, not JSON.
 */
export function formBody(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST') return next();
  // null: no body at all, which the page answers as an empty form.
  if (req.is('application/x-www-form-urlencoded') === false) {
    return sendPage(res, errorPage(415, 'The form could not be read', 'Send the form as application/x-www-form-urlencoded.'));
  }
  parse(req, res, (err?: { status?: number }) => {
    if (!err) return next();
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 400;
    sendPage(
      res,
      errorPage(status, 'The form could not be read', 'The form was too large or not well formed. Open the link from the mail again.'),
    );
  });
}
