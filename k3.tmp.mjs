import MarkdownIt from 'markdown-it';
import { SHAPES } from './dist/bench/lib/markdown-shapes.js';
const md = new MarkdownIt();
const time = (input) => { const xs=[]; for (let i = 0; i < 7; i++) { const t = performance.now(); md.render(input); xs.push(performance.now() - t); } xs.sort((a,b)=>a-b); return xs[0]; };
for (const name of process.argv.slice(2)) { const s = SHAPES.find(x=>x.name===name); const a = time(s.make(2500)), b = time(s.make(10000)), c = time(s.make(40000)); console.log(name, a.toFixed(2), b.toFixed(2), c.toFixed(2)); }
