import { Controller, Get, HttpCode, Param, Put, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Problem, Public, UrlSigner } from '@app/core';
import { BlobStorage } from './blob-storage';
import { DownloadClaims, LocalBlobStorage, UploadClaims } from './local-blob-storage';

/**
 * The local adapter's upload and download URLs. Authorised by the HMAC-signed, expiring token in
 * the path (no bearer token), and outside /api so JSON body rules do not apply.
 */
@ApiExcludeController()
@Public()
@Controller('blobs')
export class BlobTransferController {
  constructor(
    private readonly storage: BlobStorage,
    private readonly signer: UrlSigner,
  ) {}

  @Put('uploads/:token')
  @HttpCode(204)
  async upload(@Param('token') token: string, @Req() req: Request): Promise<void> {
    const local = this.local();
    const claims = this.signer.verify<UploadClaims>('upload', token);
    if (!claims) throw new Problem(403, 'forbidden', 'The upload URL is invalid or has expired.');
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (contentType !== claims.t) throw new Problem(415, 'unsupported_media_type', `Send the file with Content-Type: ${claims.t}.`);
    const length = Number(req.headers['content-length'] ?? NaN);
    if (length > claims.s) throw new Problem(413, 'payload_too_large', `The file is larger than the declared ${claims.s} bytes.`);
    const outcome = await local.receive(claims.k, req, claims.s);
    if (outcome === 'too_large') {
      req.resume();
      throw new Problem(413, 'payload_too_large', `The file is larger than the declared ${claims.s} bytes.`);
    }
    if (outcome === 'exists') throw Problem.conflict('attachment_in_use', 'A file was already uploaded with this URL.');
  }

  @Get('downloads/:token')
  async download(@Param('token') token: string, @Res() res: Response): Promise<void> {
    const local = this.local();
    const claims = this.signer.verify<DownloadClaims>('download', token);
    if (!claims) throw new Problem(403, 'forbidden', 'The download URL is invalid or has expired.');
    const size = await local.size(claims.k);
    if (size === null) throw Problem.notFound('File');
    res.setHeader('Content-Type', claims.t);
    res.setHeader('Content-Length', String(size));
    res.setHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(claims.n)}`);
    res.setHeader('Cache-Control', 'private, no-store');
    // A customer's file opened in a browser on the API's origin must not run as a page of it.
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    local.open(claims.k).pipe(res);
  }

  private local(): LocalBlobStorage {
    if (!(this.storage instanceof LocalBlobStorage)) throw Problem.notFound('Route');
    return this.storage;
  }
}
