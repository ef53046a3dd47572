import { createInterface } from 'node:readline';
import { UsageError } from './errors';

export interface AskOptions {
  /** Echo nothing (passwords, codes). */
  hidden?: boolean;
  /** How to give the answer without a terminal, e.g. "give it with --email". */
  hint?: string;
  /** The whole refusal, instead of "<question> is needed and standard input is not a terminal: <hint>". */
  refusal?: string;
}

/** Asks on the terminal. Refuses when stdin is not a terminal, saying which option gives the answer instead. */
export function ask(question: string, options: AskOptions = {}): Promise<string> {
  if (!process.stdin.isTTY) {
    const needed = `${question.replace(/:\s*$/, '')} is needed and standard input is not a terminal`;
    throw new UsageError(options.refusal ?? `${needed}${options.hint ? `: ${options.hint}` : ''}`);
  }
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
