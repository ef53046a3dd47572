import { paint } from './output';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A spinner line on stderr while something runs; nothing at all when stderr is not a terminal. */
export function progressLine(label: string): { stop(): void } {
  const stream = process.stderr;
  if (!stream.isTTY) return { stop: () => undefined };
  const started = Date.now();
  let frame = 0;
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    stream.write(`\r${paint(FRAMES[frame++ % FRAMES.length], 'yellow', stream)} ${label} (${seconds}s)\u001b[K`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return {
    stop() {
      clearInterval(timer);
      stream.write('\r\u001b[K');
    },
  };
}
