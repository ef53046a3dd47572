import type { Socket } from 'node:net';
import { decodePixelFormat, encodePixelFormat, PixelFormat, rawPixels, SERVER_PIXEL_FORMAT } from './pixel-format';
import { SocketReader } from './socket-reader';
import type { Screen } from './still-screen';
import { vncChallenge } from './vnc-auth';

const SECURITY_VNC_AUTH = 2;
const ENCODING_RAW = 0;
const MAX_CUT_TEXT = 1 << 20;

export interface RfbSessionOptions {
  /** The desktop name sent in ServerInit. */
  name: string;
  screen: Screen;
  /** Whether the client's 16-byte answer to the challenge proves a valid password. */
  authenticate(challenge: Buffer, response: Buffer): boolean;
}

class ProtocolError extends Error {}

/**
 * The server side of one RFB 3.8 connection (RFC 6143): VNC authentication, then a still screen
 * sent in Raw encoding for every non-incremental update request (an incremental one has nothing
 * new to send). Ends the socket on any protocol error or failed authentication.
 */
export async function serveRfbSession(socket: Socket, options: RfbSessionOptions): Promise<void> {
  const reader = new SocketReader(socket);
  socket.setNoDelay(true);
  try {
    socket.write('RFB 003.008\n');
    const version = (await reader.read(12)).toString('latin1');
    if (!/^RFB 003\.00[78]\n$/.test(version)) throw new ProtocolError(`unsupported version ${JSON.stringify(version)}`);
    socket.write(Buffer.from([1, SECURITY_VNC_AUTH]));
    if ((await reader.read(1))[0] !== SECURITY_VNC_AUTH) throw new ProtocolError('unsupported security type');
    const challenge = vncChallenge();
    socket.write(challenge);
    const response = await reader.read(16);
    if (!options.authenticate(challenge, response)) {
      const reason = Buffer.from('Authentication failed', 'latin1');
      const result = Buffer.alloc(8);
      result.writeUInt32BE(1, 0);
      result.writeUInt32BE(reason.length, 4);
      socket.end(Buffer.concat([result, reason]));
      return;
    }
    socket.write(Buffer.alloc(4));
    await reader.read(1); // ClientInit: the shared flag (every session sees the same screen)
    socket.write(serverInit(options));
    await serveMessages(socket, reader, options.screen);
  } catch (err) {
    if (err instanceof ProtocolError) socket.destroy();
  }
}

function serverInit({ name, screen }: RfbSessionOptions): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt16BE(screen.width, 0);
  size.writeUInt16BE(screen.height, 2);
  const nameBytes = Buffer.from(name, 'utf8');
  const nameLength = Buffer.alloc(4);
  nameLength.writeUInt32BE(nameBytes.length, 0);
  return Buffer.concat([size, encodePixelFormat(SERVER_PIXEL_FORMAT), nameLength, nameBytes]);
}

async function serveMessages(socket: Socket, reader: SocketReader, screen: Screen): Promise<void> {
  let format: PixelFormat = SERVER_PIXEL_FORMAT;
  let frame: Buffer | null = null;
  for (;;) {
    const [type] = await reader.read(1);
    switch (type) {
      case 0: {
        const requested = decodePixelFormat((await reader.read(19)).subarray(3));
        if (!requested) throw new ProtocolError('unsupported pixel format');
        format = requested;
        frame = null;
        break;
      }
      case 2: {
        const count = (await reader.read(3)).readUInt16BE(1);
        await reader.read(count * 4); // Raw is always allowed; this server sends nothing else.
        break;
      }
      case 3: {
        const incremental = (await reader.read(9))[0] !== 0;
        if (!incremental) {
          frame ??= framebufferUpdate(screen, format);
          if (!socket.write(frame)) await new Promise((resolve) => socket.once('drain', resolve));
        }
        break;
      }
      case 4:
        await reader.read(7);
        break;
      case 5:
        await reader.read(5);
        break;
      case 6: {
        const length = (await reader.read(7)).readUInt32BE(3);
        if (length > MAX_CUT_TEXT) throw new ProtocolError('clipboard text too long');
        await reader.read(length);
        break;
      }
      default:
        throw new ProtocolError(`unsupported client message ${type}`);
    }
  }
}

function framebufferUpdate(screen: Screen, format: PixelFormat): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt8(0, 0);
  header.writeUInt16BE(1, 2);
  header.writeUInt16BE(screen.width, 8);
  header.writeUInt16BE(screen.height, 10);
  header.writeInt32BE(ENCODING_RAW, 12);
  return Buffer.concat([header, rawPixels(screen, format)]);
}
