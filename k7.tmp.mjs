import { SHAPES } from './dist/bench/lib/markdown-shapes.js';
import { corpusContext } from './dist/bench/markdown-corpus.js';
import { renderMarkdown } from './dist/src/markdown/index.js';
import MarkdownIt from 'markdown-it';
const md = new MarkdownIt();
const time = (f) => { const xs=[]; for (let i = 0; i < 5; i++) { const t = performance.now(); f(); xs.push(performance.now() - t); } return Math.min(...xs); };
for (const name of process.argv.slice(2)) { const s = SHAPES.find(x=>x.name===name); const out=[]; for (const n of [5000,20000,80000]) { const input=s.make(n); out.push(time(()=>renderMarkdown(input, corpusContext(false))).toFixed(1)+'/'+time(()=>md.render(input)).toFixed(1)); } console.log(name.padEnd(26), out.join('  ')); }
