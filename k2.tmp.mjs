import { SHAPES } from './dist/bench/lib/markdown-shapes.js';
import { corpusContext } from './dist/bench/markdown-corpus.js';
import { renderMarkdown } from './dist/src/markdown/index.js';
const name = process.argv[2]; const n = Number(process.argv[3] ?? 10000);
const s = SHAPES.find((x) => x.name === name); const input = s.make(n);
for (let i = 0; i < 20; i++) renderMarkdown(input, corpusContext(!!s.translateEmoticons));
