// Loads a trace into Perfetto's own trace processor (trace_processor.wasm of a Perfetto UI build) in node,
// through the same RPC the UI's engine worker uses, and runs SQL queries on what it imported.
//
//   node tp_load.cjs UI_PACKAGE_DIR TRACE_FILE QUERIES_JSON
//
// UI_PACKAGE_DIR holds engine_bundle.js and trace_processor.wasm (scripts/fetch_perfetto_ui.sh). The bundle
// runs as in its web worker: a stand-in `self` receives the message port, and every request is a
// TraceProcessorRpcStream (perfetto/protos/perfetto/trace_processor/trace_processor.proto) written to that
// port; the replies come back on it. QUERIES_JSON is an object {name: "SQL"}. Prints one JSON object on
// stdout: {trace_bytes, load_seconds, queries: {name: {columns, rows}}}; exits 1 with the trace processor's
// message on stderr if it rejects the trace or a query.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

// TraceProcessorRpc fields and methods (trace_processor.proto).
const RPC = {seq: 1, request: 2, response: 3, invalidRequest: 4, fatalError: 5, appendTraceData: 101,
             queryArgs: 103, appendResult: 201, queryResult: 203};
const TPM = {APPEND_TRACE_DATA: 1, FINALIZE_TRACE_DATA: 2, QUERY_STREAMING: 3};
const CELL = {NULL: 1, VARINT: 2, FLOAT64: 3, STRING: 4, BLOB: 5};
const CHUNK_BYTES = 16 * 1024 * 1024;

// --- protobuf wire format: only what the RPC needs ---
function varint(value) {
  const out = [];
  let v = BigInt(value);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Buffer.from(out);
}
const key = (field, wireType) => varint(field * 8 + wireType);
const varintField = (field, value) => Buffer.concat([key(field, 0), varint(value)]);
const bytesField = (field, bytes) => Buffer.concat([key(field, 2), varint(bytes.length), bytes]);

// Yields [field, wireType, value] for each field of a message; value is a BigInt (varint), a Buffer
// (length-delimited) or a Buffer of 8 bytes (fixed64).
function* fields(buf) {
  let pos = 0;
  const readVarint = () => {
    let result = 0n, shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const byte = buf[pos++];
      result |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return result;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const k = Number(readVarint());
    const field = k >>> 3, wireType = k & 7;
    if (wireType === 0) yield [field, 0, readVarint()];
    else if (wireType === 1) { yield [field, 1, buf.subarray(pos, pos + 8)]; pos += 8; }
    else if (wireType === 2) {
      const len = Number(readVarint());
      yield [field, 2, buf.subarray(pos, pos + len)];
      pos += len;
    } else if (wireType === 5) { yield [field, 5, buf.subarray(pos, pos + 4)]; pos += 4; }
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}
const signed64 = (v) => BigInt.asIntN(64, v);
function packedVarints(buf) {
  const out = [];
  for (let pos = 0; pos < buf.length;) {
    let result = 0n, shift = 0n;
    for (;;) {
      const byte = buf[pos++];
      result |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
      shift += 7n;
    }
    out.push(result);
  }
  return out;
}

// --- the engine, as its web worker runs it ---
function startEngine(packageDir) {
  const replies = [];
  const port = {onmessage: null, postMessage: (data) => replies.push(Buffer.from(data))};
  const worker = {onmessage: null};
  // stdout carries only the result: the engine's own log lines go to stderr.
  console.log = console.error;
  const context = {self: worker, require, __dirname: packageDir};
  for (const name of Object.keys(context)) globalThis[name] = context[name];
  // The bundle's loader reads trace_processor.wasm relative to the working directory.
  const cwd = process.cwd();
  process.chdir(packageDir);
  vm.runInThisContext(fs.readFileSync(path.join(packageDir, 'engine_bundle.js'), 'utf8'),
                      {filename: 'engine_bundle.js'});
  process.chdir(cwd);
  if (typeof worker.onmessage !== 'function') throw new Error('engine_bundle.js did not install its worker handler');
  worker.onmessage({data: {enginePort: port}});
  return {port, replies};
}

class TraceProcessor {
  constructor(engine) {
    this.engine = engine;
    this.seq = 0;
    this.pending = Buffer.alloc(0);
  }

  // Sends one request and returns the TraceProcessorRpc replies it produced (decoded as field maps).
  call(method, argsField, argsBytes) {
    const rpc = [varintField(RPC.seq, ++this.seq), varintField(RPC.request, method)];
    if (argsField) rpc.push(bytesField(argsField, argsBytes));
    const stream = bytesField(1, Buffer.concat(rpc));  // TraceProcessorRpcStream.msg
    this.engine.port.onmessage({data: new Uint8Array(stream.buffer, stream.byteOffset, stream.length)});
    this.pending = Buffer.concat([this.pending, ...this.engine.replies.splice(0)]);
    const messages = [];
    let consumed = 0;
    try {
      for (const [field, , value] of fields(this.pending)) {
        if (field !== 1) throw new Error(`unexpected field ${field} in the reply stream`);
        messages.push(value);
        consumed = value.byteOffset - this.pending.byteOffset + value.length;
      }
    } catch (e) {
      // A frame split across replies stays pending until its rest arrives.
    }
    this.pending = this.pending.subarray(consumed);
    return messages.map((m) => {
      const out = {};
      for (const [field, , value] of fields(m)) out[field] = value;
      if (out[RPC.fatalError]) throw new Error(`trace processor fatal error: ${out[RPC.fatalError].toString()}`);
      if (out[RPC.invalidRequest] !== undefined) throw new Error(`trace processor: invalid request ${out[RPC.invalidRequest]}`);
      return out;
    });
  }

  append(bytes) {
    for (const reply of this.call(TPM.APPEND_TRACE_DATA, RPC.appendTraceData, bytes)) {
      for (const [field, , value] of fields(reply[RPC.appendResult] || Buffer.alloc(0)))
        if (field === 2 && value.length) throw new Error(`trace processor rejected the trace: ${value.toString()}`);
    }
  }

  finalize() { this.call(TPM.FINALIZE_TRACE_DATA); }

  query(sql) {
    const columns = [], rows = [];
    let row = [], done = false;
    const args = bytesField(1, Buffer.from(sql, 'utf8'));  // QueryArgs.sql_query
    for (const reply of this.call(TPM.QUERY_STREAMING, RPC.queryArgs, args)) {
      for (const [field, , value] of fields(reply[RPC.queryResult] || Buffer.alloc(0))) {
        if (field === 1) columns.push(value.toString());
        else if (field === 2 && value.length) throw new Error(`query failed: ${value.toString()}\n  ${sql}`);
        else if (field === 3) done = decodeBatch(value, columns, rows, row) || done;
      }
    }
    if (!done) throw new Error(`query did not finish in one call: ${sql}`);
    return {columns, rows};
  }
}

// QueryResult.CellsBatch: cell types in row-major order, with the values in per-type lists.
function decodeBatch(batch, columns, rows, row) {
  let cells = [], varints = [], floats = [], blobs = [], strings = [], last = false;
  for (const [field, wireType, value] of fields(batch)) {
    if (field === 1) cells = cells.concat(wireType === 2 ? packedVarints(value).map(Number) : [Number(value)]);
    else if (field === 2) varints = varints.concat(wireType === 2 ? packedVarints(value) : [value]);
    else if (field === 3) for (let i = 0; i < value.length; i += 8) floats.push(value.readDoubleLE(i));
    else if (field === 4) blobs.push(value);
    else if (field === 5) strings = strings.concat(value.toString('utf8').split('\0').slice(0, -1));
    else if (field === 6) last = value !== 0n;
  }
  let v = 0, f = 0, s = 0, b = 0;
  for (const cell of cells) {
    if (cell === CELL.NULL) row.push(null);
    else if (cell === CELL.VARINT) {
      const n = signed64(varints[v++]);
      row.push(n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString());
    } else if (cell === CELL.FLOAT64) row.push(floats[f++]);
    else if (cell === CELL.STRING) row.push(strings[s++]);
    else if (cell === CELL.BLOB) row.push(`<blob ${blobs[b++].length} bytes>`);
    else throw new Error(`unknown cell type ${cell}`);
    if (row.length === columns.length) rows.push(row.splice(0));
  }
  return last;
}

async function main() {
  const [packageDir, traceFile, queriesFile] = process.argv.slice(2);
  if (!queriesFile) {
    process.stderr.write('usage: node tp_load.cjs UI_PACKAGE_DIR TRACE_FILE QUERIES_JSON\n');
    process.exit(2);
  }
  const queries = JSON.parse(fs.readFileSync(queriesFile, 'utf8'));
  const started = process.hrtime.bigint();
  const engine = startEngine(path.resolve(packageDir));
  // The runtime finishes initialising (trace_processor_rpc_init) in promise callbacks.
  for (let i = 0; i < 3; ++i) await new Promise((resolve) => setImmediate(resolve));
  const tp = new TraceProcessor(engine);
  // Read in chunks, as the UI does, so the whole file is never held twice.
  const fd = fs.openSync(traceFile, 'r');
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let total = 0;
  for (let n; (n = fs.readSync(fd, chunk, 0, CHUNK_BYTES, null)) > 0; total += n) tp.append(chunk.subarray(0, n));
  fs.closeSync(fd);
  tp.finalize();
  const loadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const results = {};
  for (const [name, sql] of Object.entries(queries)) results[name] = tp.query(sql);
  process.stdout.write(JSON.stringify({trace_bytes: total, load_seconds: loadSeconds, queries: results}) + '\n');
}

main().catch((e) => {
  process.stderr.write(`tp_load: ${e.message}\n`);
  process.exit(1);
});
