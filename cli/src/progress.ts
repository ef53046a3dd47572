import { paint } from './output';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A spinner line on stderr while something runs; nothing at all when stderr is not a terminal.
 * `status(text)` shows where it is after the label (an action's `40% copying the disk`).
 */
export function progressLine(label: string): { stop(): void; status(text: string): void } {
  const stream = process.stderr;
  if (!stream.isTTY) return { stop: () => undefined, status: () => undefined };
  const started = Date.now();
  let frame = 0;
  let where = '';
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    // One line: a long step is cut at the terminal's width rather than wrapped (a terminal that
    // reports no size, as `script` gives, is taken as 80 columns); the time stays in sight.
    const line = `${label} (${seconds}s)${where ? ` ${where}` : ''}`.slice(0, Math.max(20, (stream.columns || 80) - 3));
    stream.write(`\r${paint(FRAMES[frame++ % FRAMES.length], 'yellow', stream)} ${line}\u001b[K`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return {
    status(text: string) {
      where = text;
    },
    stop() {
      clearInterval(timer);
      stream.write('\r\u001b[K');
    },
  };
}
