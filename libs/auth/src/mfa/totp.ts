import { generateSecret, generateURI, verify } from 'otplib';

const ISSUER = 'Hosting Account';
/** One 30-second step either side, for clocks that drift (RFC 6238 section 5.2). */
const TOLERANCE_SECONDS = 30;

export interface TotpEnrolment {
  secret: string;
  otpauthUri: string;
  qrCodeDataUrl: string;
}

/** RFC 6238 codes (SHA-1, 6 digits, 30 s) through otplib. */
export const totp = {
  async enrol(label: string): Promise<TotpEnrolment> {
    const secret = generateSecret();
    const otpauthUri = generateURI({ issuer: ISSUER, label, secret });
    // The QR encoder (and its PNG code) loads at the first enrolment, not in every replica's start.
    const { toString: qrCodeSvg } = await import('qrcode');
    const svg = await qrCodeSvg(otpauthUri, { type: 'svg', margin: 1 });
    return { secret, otpauthUri, qrCodeDataUrl: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
  },

  /** The time step the code belongs to, or null; steps at or before `afterTimeStep` are replays. */
  async check(secret: string, code: string, afterTimeStep: number | null): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await verify({
      secret,
      token: code,
      epochTolerance: TOLERANCE_SECONDS,
      ...(afterTimeStep !== null ? { afterTimeStep } : {}),
    }).catch(() => ({ valid: false as const }));
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  },
};
