import { createInterface } from 'node:readline';
import { UsageError } from './errors';

/** Asks on the terminal; `hidden` echoes nothing (passwords, codes). Refuses when stdin is not a terminal. */
export function ask(question: string, options: { hidden?: boolean } = {}): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError(`${question.replace(/:\s*$/, '')} is needed and standard input is not a terminal`);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (options.hidden) {
    // readline echoes through _writeToOutput; muting it hides what is typed.
    const muted = rl as unknown as { _writeToOutput: (text: string) => void };
    let prompted = false;
    muted._writeToOutput = (text: string) => {
      if (!prompted) process.stderr.write(text);
      prompted = true;
    };
  }
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      if (options.hidden) process.stderr.write('\n');
      rl.close();
      resolve(answer.trim());
    });
  });
}

/** All of standard input (for --password-stdin and --token-stdin), without the final newline. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
