// Prints the benchmark table and writes it as JSON and SVG under bench/results/.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const RESULTS_DIR = join(__dirname, '..', 'results');

function format(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(2);
  return String(value);
}

/** rows: { figure, value, unit, reference, ratio, bar, pass } */
function report(name, rows) {
  const header = ['figure', 'value', 'reference', 'ratio', 'bar', 'result'];
  const lines = rows.map((row) => [
    row.figure,
    `${format(row.value)} ${row.unit ?? ''}`.trim(),
    row.reference === undefined ? '—' : `${format(row.reference)} ${row.unit ?? ''}`.trim(),
    format(row.ratio),
    row.bar ?? '—',
    row.pass === undefined ? 'INFO' : row.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const render = (cells) => cells.map((cell, column) => cell.padEnd(widths[column])).join('  ');
  console.log(`\n${name}`);
  console.log(render(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(render(line));

  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString();
  writeFileSync(join(RESULTS_DIR, `${name}.json`), `${JSON.stringify({ name, measured_at: stamp, rows }, null, 2)}\n`);
  writeFileSync(join(RESULTS_DIR, `${name}.svg`), chart(name, rows));
}

/** A horizontal bar per figure: its ratio against the bar's threshold (1.0 = exactly at the bar). */
function chart(name, rows) {
  const rowHeight = 28;
  const width = 760;
  const left = 300;
  const height = 50 + rows.length * rowHeight;
  const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const bars = rows
    .map((row, index) => {
      const y = 40 + index * rowHeight;
      const share = Math.max(0, Math.min(1, (row.score ?? (row.pass ? 1 : 0.5)) / 2));
      const colour = row.pass === undefined ? '#888' : row.pass ? '#2e7d32' : '#c62828';
      return (
        `<text x="10" y="${y + 16}" font-size="12">${escape(row.figure)}</text>` +
        `<rect x="${left}" y="${y}" width="${Math.round(share * (width - left - 80))}" height="20" fill="${colour}"/>` +
        `<text x="${left + 6 + Math.round(share * (width - left - 80))}" y="${y + 15}" font-size="12">${escape(format(row.value))} ${escape(row.unit ?? '')}</text>`
      );
    })
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">` +
    `<text x="10" y="22" font-size="15" font-weight="bold">${escape(name)}</text>${bars}</svg>\n`
  );
}

module.exports = { report };
