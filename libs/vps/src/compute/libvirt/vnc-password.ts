import { randomInt } from 'node:crypto';

/** Classic VNC authentication reads at most 8 characters. */
const VNC_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

export const vncPassword = (): string => Array.from({ length: 8 }, () => VNC_ALPHABET[randomInt(VNC_ALPHABET.length)]).join('');
