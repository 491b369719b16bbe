import MarkdownIt from 'markdown-it';
const md = new MarkdownIt();
const n = Number(process.argv[2]);
const input = 'a|b\n-|-\n' + '1|2\n'.repeat(n/4);
for (const phase of ['parse','render']) { const xs=[]; for (let i=0;i<7;i++){ const t=performance.now(); phase==='parse'? md.parse(input,{}) : md.render(input); xs.push(performance.now()-t);} console.log(n, phase, Math.min(...xs).toFixed(2)); }
