import { SHAPES } from './dist/bench/lib/markdown-shapes.js';
import { corpusContext } from './dist/bench/markdown-corpus.js';
import { renderMarkdown } from './dist/src/markdown/index.js';
const time = (input, tr) => { const xs=[]; for (let i = 0; i < 7; i++) { const t = performance.now(); renderMarkdown(input, corpusContext(tr)); xs.push(performance.now() - t); } xs.sort((a,b)=>a-b); return xs[0]; };
for (const s of SHAPES) { const a = time(s.make(2500), s.translateEmoticons), b = time(s.make(10000), s.translateEmoticons); console.log(s.name.padEnd(28), a.toFixed(2).padStart(8), b.toFixed(2).padStart(8), (b/a).toFixed(1)); }
