import { open, stat } from 'node:fs/promises';
import type { ImageFormat } from './image.types';

export interface ImageFileFacts {
  format: ImageFormat;
  /** Bytes on disk (what is uploaded). */
  sizeBytes: number;
  /** The disk the image describes: a qcow2 header's size, or a raw file's length. */
  virtualBytes: number;
}

const QCOW_MAGIC = 0x514649fb; // "QFI\xfb"

/** Reads what image:add needs from a qcow2 or raw file without qemu-img. */
export async function inspectImageFile(path: string): Promise<ImageFileFacts> {
  const { size } = await stat(path);
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(32);
    const { bytesRead } = await file.read(header, 0, 32, 0);
    if (bytesRead >= 32 && header.readUInt32BE(0) === QCOW_MAGIC) {
      return { format: 'qcow2', sizeBytes: size, virtualBytes: Number(header.readBigUInt64BE(24)) };
    }
    return { format: 'raw', sizeBytes: size, virtualBytes: size };
  } finally {
    await file.close();
  }
}
