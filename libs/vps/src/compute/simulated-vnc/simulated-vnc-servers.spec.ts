import { connect, Socket } from 'node:net';
import { rawPixels, SERVER_PIXEL_FORMAT } from './pixel-format';
import { SocketReader } from './socket-reader';
import { stillScreen } from './still-screen';
import { vncResponse } from './vnc-auth';
import { SimulatedVncServers } from './simulated-vnc-servers';

/** Logs in with `password` (RFB 3.8, VNC authentication) and reads one full frame: the desktop name and its pixels. */
async function frame(port: number, password: string): Promise<{ name: string; pixels: Buffer }> {
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
  try {
    const reader = new SocketReader(socket);
    socket.write(await reader.read(12)); // the same version back
    await reader.read((await reader.read(1))[0]);
    socket.write(Buffer.from([2]));
    socket.write(vncResponse(password, await reader.read(16)));
    expect((await reader.read(4)).readUInt32BE(0)).toBe(0);
    socket.write(Buffer.from([1]));
    const init = await reader.read(24);
    const name = (await reader.read(init.readUInt32BE(20))).toString('utf8');
    const request = Buffer.alloc(10);
    request.writeUInt8(3, 0);
    request.writeUInt16BE(init.readUInt16BE(0), 6);
    request.writeUInt16BE(init.readUInt16BE(2), 8);
    socket.write(request);
    await reader.read(4);
    const rect = await reader.read(12);
    return { name, pixels: await reader.read(rect.readUInt16BE(4) * rect.readUInt16BE(6) * 4) };
  } finally {
    socket.destroy();
  }
}

describe('SimulatedVncServers', () => {
  const servers = new SimulatedVncServers();
  afterAll(() => servers.onModuleDestroy());

  it("draws the service's name beside the machine's on the screen, and redraws it after a rename", async () => {
    const { port } = await servers.addPassword('sim-1234', 'pass1234', 'web-1');
    const seen = await frame(port, 'pass1234');
    expect(seen.name).toBe('sim-1234');
    expect(seen.pixels.equals(rawPixels(stillScreen('web-1  sim-1234'), SERVER_PIXEL_FORMAT))).toBe(true);

    const again = await servers.addPassword('sim-1234', 'pass5678', 'shop');
    expect(again.port).toBe(port);
    expect((await frame(port, 'pass5678')).pixels.equals(rawPixels(stillScreen('shop  sim-1234'), SERVER_PIXEL_FORMAT))).toBe(true);
  });

  it("shows the machine's name alone when the service's is not known", async () => {
    const { port } = await servers.addPassword('sim-5678', 'pass0000');
    expect((await frame(port, 'pass0000')).pixels.equals(rawPixels(stillScreen('sim-5678'), SERVER_PIXEL_FORMAT))).toBe(true);
  });
});
