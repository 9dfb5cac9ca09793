'use strict';
// Start-up with a large registry. Cold start as the coldstart section measures it (spawn → first HTTP 200 with the
// right modern `tools/call` echo answer) of conduit.ts with BENCH_TOOLS = 10, 1 000 and 5 000 tools, the sizes taking
// turns run by run; RSS read right after that first answer, then again after walking every page of a modern
// `tools/list` (the listing is built on the first request for it), whose count proves the server serves every tool.
// Then a one-DTO-tool app (dto-tool.ts: class-validator input) against a bare Nest app (bare-nest.ts), alternating.
// Medians of the runs, each kind started once unrecorded first so that every measured start finds the page cache warm.
const { rssMb } = require('../lib/procs');
const { requestShape } = require('../lib/protocol');
const { post } = require('../lib/http-post');
const { median, round } = require('../lib/stats');
const { table, targetLines } = require('../lib/markdown');
const coldstart = require('./coldstart');

// Upper bound of the pages walked (the default page size is 100: 5 000 tools are 50 pages).
const MAX_PAGES = 1_000;

const sizeSpec = (tools) => ({
  id: `tools-${tools}`,
  tools,
  file: 'conduit.ts',
  env: { BENCH_TOOLS: String(tools) },
  request: coldstart.mcpRequest,
});
const DTO = {
  id: 'dto-tool',
  label: 'one DTO tool (dto-tool.ts, modern tools/call)',
  file: 'dto-tool.ts',
  request: coldstart.mcpRequest,
};
const BARE = { ...coldstart.SERVERS.find((s) => s.id === 'bare-nest') };

/** Walks every page of a modern tools/list; resolves { count, pages }. */
async function listTools(url) {
  const { headers } = requestShape('modern', 'tools/list');
  const meta = JSON.parse(requestShape('modern', 'tools/list').body(0)).params._meta;
  let cursor;
  let count = 0;
  let pages = 0;
  do {
    const params = cursor === undefined ? { _meta: meta } : { cursor, _meta: meta };
    const r = await post(url, headers, JSON.stringify({ jsonrpc: '2.0', id: pages + 1, method: 'tools/list', params }));
    const msg = r.status === 200 ? JSON.parse(r.text) : undefined;
    if (!msg || !msg.result || !Array.isArray(msg.result.tools))
      throw new Error(`tools/list page ${pages + 1}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    count += msg.result.tools.length;
    pages++;
    cursor = msg.result.nextCursor;
  } while (cursor !== undefined && pages < MAX_PAGES);
  return { count, pages };
}

/** After the first answer: RSS, then the whole listing, then RSS again. */
async function afterAnswerWithList(started) {
  const rssAnswer = rssMb(started.pid);
  const listed = await listTools(`http://127.0.0.1:${started.port}/mcp`);
  return { rssAnswer, rssListed: rssMb(started.pid), ...listed };
}

const afterAnswerRss = async (started) => ({ rssAnswer: rssMb(started.pid) });

/**
 * `runs` rounds over `specs`, the order reversed every other round (A B … B A) so that a drift of the machine
 * favours none; a failed start is logged and left out. Resolves { [id]: start[] }.
 */
async function alternate(specs, runs, afterAnswer, log, tag) {
  const results = Object.fromEntries(specs.map((s) => [s.id, []]));
  for (const spec of specs) {
    try {
      await coldstart.oneStart(spec, afterAnswer);
    } catch (error) {
      log(`${tag} ${spec.id} unrecorded start: failed: ${error.message.split('\n')[0]}`);
    }
  }
  for (let run = 0; run < runs; run++) {
    for (const spec of run % 2 ? [...specs].reverse() : specs) {
      try {
        const r = await coldstart.oneStart(spec, afterAnswer);
        results[spec.id].push(r);
        log(
          `${tag} ${spec.id} #${run + 1}: answered ${round(r.answered)} ms (READY ${round(r.ready)}), RSS ${r.after.rssAnswer} MB` +
            (r.after.rssListed != null ? `, ${r.after.rssListed} MB after listing ${r.after.count} tools` : ''),
        );
      } catch (error) {
        log(`${tag} ${spec.id} #${run + 1}: failed: ${error.message.split('\n')[0]}`);
      }
    }
  }
  return results;
}

const med = (starts, pick) => {
  const xs = starts.map(pick).filter((x) => x != null);
  return xs.length ? median(xs) : null;
};
const perTool = (a, b, extra, scale = 1) => (a == null || b == null ? null : ((b - a) * scale) / extra);
const ratioOf = (a, b) => (a == null || b == null || !a ? null : round(b / a, 2));

module.exports = {
  id: 'registry',
  title: 'Start-up with a large registry',
  async run({ quick, log = () => {} }) {
    const sizes = quick ? [10, 5000] : [10, 1000, 5000];
    const runs = quick ? 3 : 7;
    const dtoRuns = quick ? 3 : 9;
    const specs = sizes.map(sizeSpec);

    const registry = await alternate(specs, runs, afterAnswerWithList, log, 'registry');
    // Every start must have served every tool, or the timings are not of what they claim.
    for (const spec of specs) {
      const wrong = registry[spec.id].filter((r) => r.after.count !== spec.tools);
      if (wrong.length)
        throw new Error(`BENCH_TOOLS=${spec.tools}: tools/list listed ${wrong.map((r) => r.after.count).join(', ')}`);
    }
    const fig = Object.fromEntries(
      specs.map((s) => {
        const starts = registry[s.id];
        return [
          s.id,
          {
            starts: starts.length,
            answered: med(starts, (r) => r.answered),
            ready: med(starts, (r) => r.ready),
            rssAnswer: med(starts, (r) => r.after.rssAnswer),
            rssListed: med(starts, (r) => r.after.rssListed),
            pages: starts.length ? starts[0].after.pages : null,
          },
        ];
      }),
    );
    const small = fig['tools-10'];
    const large = fig['tools-5000'];
    const extra = 5000 - 10;
    const msPerTool = perTool(small.answered, large.answered, extra);
    const kbPerToolAnswer = perTool(small.rssAnswer, large.rssAnswer, extra, 1024);
    const kbPerToolListed = perTool(small.rssListed, large.rssListed, extra, 1024);
    const startRatio = ratioOf(small.answered, large.answered);

    const dto = await alternate([DTO, BARE], dtoRuns, afterAnswerRss, log, 'registry');
    const dtoMs = med(dto[DTO.id], (r) => r.answered);
    const bareMs = med(dto[BARE.id], (r) => r.answered);
    const dtoRatio = ratioOf(bareMs, dtoMs);

    const kb = round(kbPerToolListed, 2);
    const targets = [
      {
        target: 'start-up with 5 000 tools ≤ 1.2 × with 10 tools',
        value: startRatio,
        threshold: 1.2,
        met: startRatio != null && startRatio <= 1.2,
      },
      {
        target: '≤ 5 KB of RSS per extra tool (5 000 vs 10, after tools/list)',
        value: kb,
        threshold: 5,
        met: kb != null && kb <= 5,
      },
      {
        target: "cold start of a one-DTO-tool app ≤ 1.2 × a bare Nest app's",
        value: dtoRatio,
        threshold: 1.2,
        met: dtoRatio != null && dtoRatio <= 1.2,
      },
    ];

    const sizeRows = specs.map((s) => {
      const f = fig[s.id];
      return [
        `conduit.ts, ${s.tools} tools`,
        f.starts,
        round(f.answered),
        round(f.ready),
        f.rssAnswer,
        f.rssListed,
        `${s.tools} in ${f.pages} page${f.pages === 1 ? '' : 's'}`,
        ratioOf(small.answered, f.answered)?.toFixed(2),
      ];
    });
    const dtoRows = [
      [DTO.label, dto[DTO.id].length, round(dtoMs), round(med(dto[DTO.id], (r) => r.ready)), dtoRatio],
      [BARE.label, dto[BARE.id].length, round(bareMs), round(med(dto[BARE.id], (r) => r.ready)), '1.00'],
    ];
    const markdown = [
      '## Start-up with a large registry',
      '',
      `Spawn → first HTTP 200 with the right modern \`tools/call\` echo answer (as in the cold start section), ` +
        `conduit.ts with BENCH_TOOLS tools; ${runs} starts per size, the sizes taking turns (order reversed every ` +
        `other round), one unrecorded start each first. RSS read right after the first answer, and after walking ` +
        `every page of a modern \`tools/list\` (every start listed exactly its tools). Medians.`,
      '',
      table(
        [
          'server',
          'starts',
          'first answer ms',
          'READY ms',
          'RSS after answer MB',
          'RSS after tools/list MB',
          'listed',
          '× 10 tools',
        ],
        sizeRows,
      ),
      '',
      `Per extra tool (5 000 vs 10): ${round(msPerTool, 3)} ms of start-up; ${round(kbPerToolAnswer, 2)} KB of RSS ` +
        `after the first answer, ${kb} KB after tools/list.`,
      '',
      `A one-DTO-tool app against a bare Nest app, ${dtoRuns} starts each, alternating; medians:`,
      '',
      table(['server', 'starts', 'first answer ms', 'READY ms', '× bare Nest'], dtoRows),
      '',
      ...targetLines(targets),
      '',
    ].join('\n');
    return {
      markdown,
      json: {
        runs,
        dtoRuns,
        sizes,
        figures: fig,
        msPerTool,
        kbPerToolAnswer,
        kbPerToolListed,
        dto: { dtoMs, bareMs, ratio: dtoRatio },
        starts: { ...registry, ...dto },
      },
      targets,
    };
  },
};
