import type { Screen } from './still-screen';

/** RFB PIXEL_FORMAT (RFC 6143 section 7.4), as the server offers it or a client asks for it. */
export interface PixelFormat {
  bitsPerPixel: 8 | 16 | 32;
  depth: number;
  bigEndian: boolean;
  trueColour: boolean;
  redMax: number;
  greenMax: number;
  blueMax: number;
  redShift: number;
  greenShift: number;
  blueShift: number;
}

export const SERVER_PIXEL_FORMAT: PixelFormat = {
  bitsPerPixel: 32,
  depth: 24,
  bigEndian: false,
  trueColour: true,
  redMax: 255,
  greenMax: 255,
  blueMax: 255,
  redShift: 16,
  greenShift: 8,
  blueShift: 0,
};

export function encodePixelFormat(pf: PixelFormat): Buffer {
  const out = Buffer.alloc(16);
  out.writeUInt8(pf.bitsPerPixel, 0);
  out.writeUInt8(pf.depth, 1);
  out.writeUInt8(pf.bigEndian ? 1 : 0, 2);
  out.writeUInt8(pf.trueColour ? 1 : 0, 3);
  out.writeUInt16BE(pf.redMax, 4);
  out.writeUInt16BE(pf.greenMax, 6);
  out.writeUInt16BE(pf.blueMax, 8);
  out.writeUInt8(pf.redShift, 10);
  out.writeUInt8(pf.greenShift, 11);
  out.writeUInt8(pf.blueShift, 12);
  return out;
}

/** A client's PIXEL_FORMAT, or null for one this server does not draw (colour maps, odd sizes). */
export function decodePixelFormat(raw: Buffer): PixelFormat | null {
  const bitsPerPixel = raw.readUInt8(0);
  if (bitsPerPixel !== 8 && bitsPerPixel !== 16 && bitsPerPixel !== 32) return null;
  if (raw.readUInt8(3) !== 1) return null;
  return {
    bitsPerPixel,
    depth: raw.readUInt8(1),
    bigEndian: raw.readUInt8(2) !== 0,
    trueColour: true,
    redMax: raw.readUInt16BE(4),
    greenMax: raw.readUInt16BE(6),
    blueMax: raw.readUInt16BE(8),
    redShift: raw.readUInt8(10),
    greenShift: raw.readUInt8(11),
    blueShift: raw.readUInt8(12),
  };
}

/** The whole screen as Raw-encoded pixel data in the client's format. */
export function rawPixels(screen: Screen, pf: PixelFormat): Buffer {
  const bytes = pf.bitsPerPixel / 8;
  const out = Buffer.alloc(screen.width * screen.height * bytes);
  const scale = (value: number, max: number) => Math.round((value * max) / 255);
  for (let i = 0, o = 0; i < screen.rgb.length; i += 3, o += bytes) {
    const pixel =
      ((scale(screen.rgb[i], pf.redMax) << pf.redShift) |
        (scale(screen.rgb[i + 1], pf.greenMax) << pf.greenShift) |
        (scale(screen.rgb[i + 2], pf.blueMax) << pf.blueShift)) >>>
      0;
    if (bytes === 1) out.writeUInt8(pixel & 0xff, o);
    else if (bytes === 2 && pf.bigEndian) out.writeUInt16BE(pixel & 0xffff, o);
    else if (bytes === 2) out.writeUInt16LE(pixel & 0xffff, o);
    else if (pf.bigEndian) out.writeUInt32BE(pixel, o);
    else out.writeUInt32LE(pixel, o);
  }
  return out;
}
