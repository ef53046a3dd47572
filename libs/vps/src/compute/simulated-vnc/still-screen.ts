/** A still screen for the simulator's console: RGB pixels naming the machine. */
export interface Screen {
  width: number;
  height: number;
  /** 3 bytes (red, green, blue) per pixel, row after row. */
  rgb: Buffer;
}

// 3x5 glyphs, one row per character of 3 bits ('#' = ink); anything else is drawn as a box.
const GLYPHS: Record<string, string> = {
  '0': '### #.# #.# #.# ###',
  '1': '.#. ##. .#. .#. ###',
  '2': '### ..# ### #.. ###',
  '3': '### ..# ### ..# ###',
  '4': '#.# #.# ### ..# ..#',
  '5': '### #.. ### ..# ###',
  '6': '### #.. ### #.# ###',
  '7': '### ..# .#. .#. .#.',
  '8': '### #.# ### #.# ###',
  '9': '### #.# ### ..# ###',
  a: '.#. #.# ### #.# #.#',
  b: '##. #.# ##. #.# ##.',
  c: '.## #.. #.. #.. .##',
  d: '##. #.# #.# #.# ##.',
  e: '### #.. ##. #.. ###',
  f: '### #.. ##. #.. #..',
  g: '.## #.. #.# #.# .##',
  h: '#.# #.# ### #.# #.#',
  i: '### .#. .#. .#. ###',
  j: '..# ..# ..# #.# .#.',
  k: '#.# #.# ##. #.# #.#',
  l: '#.. #.. #.. #.. ###',
  m: '#.# ### ### #.# #.#',
  n: '##. #.# #.# #.# #.#',
  o: '.#. #.# #.# #.# .#.',
  p: '##. #.# ##. #.. #..',
  q: '.#. #.# #.# ##. .##',
  r: '##. #.# ##. #.# #.#',
  s: '.## #.. .#. ..# ##.',
  t: '### .#. .#. .#. .#.',
  u: '#.# #.# #.# #.# ###',
  v: '#.# #.# #.# #.# .#.',
  w: '#.# #.# ### ### #.#',
  x: '#.# #.# .#. #.# #.#',
  y: '#.# #.# .#. .#. .#.',
  z: '### ..# .#. #.. ###',
  '-': '... ... ### ... ...',
  '.': '... ... ... ... .#.',
  _: '... ... ... ... ###',
  ' ': '... ... ... ... ...',
};
const BOX = '### #.# #.# #.# ###';

const BACKGROUND = [0x12, 0x2b, 0x4a];
const BANNER = [0xe8, 0x8d, 0x1e];
const INK = [0xff, 0xff, 0xff];

function fill(screen: Screen, x0: number, y0: number, w: number, h: number, colour: number[]): void {
  for (let y = Math.max(0, y0); y < Math.min(screen.height, y0 + h); y++) {
    for (let x = Math.max(0, x0); x < Math.min(screen.width, x0 + w); x++) {
      screen.rgb.set(colour, (y * screen.width + x) * 3);
    }
  }
}

function text(screen: Screen, value: string, x0: number, y0: number, scale: number): void {
  [...value.toLowerCase()].forEach((char, index) => {
    const rows = (GLYPHS[char] ?? BOX).split(' ');
    rows.forEach((row, y) =>
      [...row].forEach((cell, x) => {
        if (cell === '#') fill(screen, x0 + (index * 4 + x) * scale, y0 + y * scale, scale, scale, INK);
      }),
    );
  });
}

/** A dark screen with an orange banner and the machine's name written across it. */
export function stillScreen(name: string, width = 640, height = 400): Screen {
  const screen: Screen = { width, height, rgb: Buffer.alloc(width * height * 3) };
  fill(screen, 0, 0, width, height, BACKGROUND);
  fill(screen, 0, 0, width, 48, BANNER);
  text(screen, 'simulated console', 16, 12, 5);
  const scale = Math.max(1, Math.min(6, Math.floor((width - 32) / (Math.max(1, name.length) * 4))));
  text(screen, name, 16, height / 2 - 3 * scale, scale);
  return screen;
}
