import { writeFile } from 'node:fs/promises';

// GGUF v3 as llama.cpp reads it: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
// Little-endian throughout; tensor data starts at the next multiple of the alignment after the
// header, and every tensor's offset inside it is itself a multiple of the alignment.
const ALIGNMENT = 32;
enum ValueType {
  Uint32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
}
enum TokenType {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  Byte = 6,
}
const GGML_TYPE_F32 = 0;

/** The model's size: it loads in milliseconds and writes about a thousand tokens a second on one thread. */
const EMBEDDING = 64;
const BLOCKS = 2;
const HEADS = 4;
const FEED_FORWARD = 128;

/*
 * Purely random weights make a model that never closes a JSON string: greedy decoding falls into a
 * short cycle of letters and rambles until max_tokens. So residual dimension 0 is a constant channel
 * (1 in every token embedding, neither read nor written by the blocks) through which the output layer
 * adds a fixed per-token bias: letters and spaces likelier than punctuation, bytes rare (so the text
 * stays valid UTF-8), and `"`, `]`, `}` likely enough that values end after a few dozen characters.
 * Every other weight is random. Ranges were tuned by measuring outputs; DEFAULT_SEED is one whose
 * greedy output was valid JSON for every schema and prompt tried.
 */
const DEFAULT_SEED = 7;
const EMBEDDING_RANGE = 0.05;
const OUTPUT_RANGE = 0.6;
/** Blocks see the random dimensions scaled up to about unit size (the constant channel dominates the RMS). */
const BLOCK_NORM = 2.7;
const QK_RANGE = 0.3;
const V_RANGE = 0.2;
const FFN_IN_RANGE = 0.2;
/** Small block outputs keep the constant channel dominant, so its share after the final RMS norm stays near BIAS_SCALE. */
const BLOCK_OUT_RANGE = 0.02;
const BIAS_SCALE = 7.4;

export interface RandomGgufOptions {
  /** Seed of the weights: the same seed writes the same bytes. Default 7. */
  seed?: number;
  /** The context length the model declares (llama.context_length). Default 4096. */
  contextLength?: number;
}

type Metadata = [key: string, value: MetadataValue][];
type MetadataValue =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'f32s'; value: readonly number[] }
  | { type: 'i32s'; value: readonly number[] };

interface Tensor {
  name: string;
  /** ggml order: the first dimension is the contiguous one (a matrix is [inputs, outputs]). */
  dims: readonly [number] | readonly [number, number];
  data: Float32Array;
}

/**
 * Writes a tiny llama-architecture GGUF (~0.5 MB) with seeded random F32 weights and an SPM
 * vocabulary of the 256 byte tokens plus printable ASCII, so it can read and write any UTF-8 text.
 */
export async function writeRandomGguf(path: string, options: RandomGgufOptions = {}): Promise<void> {
  const random = mulberry32(options.seed ?? DEFAULT_SEED);
  const vocab = vocabulary();
  const n = vocab.tokens.length;
  const metadata: Metadata = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'tiny-random' }],
    ['llama.context_length', { type: 'u32', value: options.contextLength ?? 4096 }],
    ['llama.embedding_length', { type: 'u32', value: EMBEDDING }],
    ['llama.block_count', { type: 'u32', value: BLOCKS }],
    ['llama.feed_forward_length', { type: 'u32', value: FEED_FORWARD }],
    ['llama.attention.head_count', { type: 'u32', value: HEADS }],
    ['llama.attention.head_count_kv', { type: 'u32', value: HEADS }],
    ['llama.rope.dimension_count', { type: 'u32', value: EMBEDDING / HEADS }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'f32s', value: vocab.tokens.map(() => 0) }],
    ['tokenizer.ggml.token_type', { type: 'i32s', value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'u32', value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: 2 }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
  ];

  const matrix = (inputs: number, outputs: number, range: number): Tensor['data'] => {
    const data = new Float32Array(inputs * outputs);
    for (let i = 0; i < data.length; i++) data[i] = (random() * 2 - 1) * range;
    return data;
  };
  /** A block's output matrix, with its row for the constant channel zeroed. */
  const blockOutput = (inputs: number) => matrix(inputs, EMBEDDING, BLOCK_OUT_RANGE).fill(0, 0, inputs);
  const blockNorm = () => new Float32Array(EMBEDDING).fill(BLOCK_NORM).fill(0, 0, 1);

  const embeddings = matrix(EMBEDDING, n, EMBEDDING_RANGE);
  const output = matrix(EMBEDDING, n, OUTPUT_RANGE);
  for (let token = 0; token < n; token++) {
    embeddings[token * EMBEDDING] = 1;
    output[token * EMBEDDING] = tokenBias(vocab.tokens[token] ?? '', vocab.types[token] ?? 0) / BIAS_SCALE;
  }
  const tensors: Tensor[] = [
    { name: 'token_embd.weight', dims: [EMBEDDING, n], data: embeddings },
    { name: 'output_norm.weight', dims: [EMBEDDING], data: new Float32Array(EMBEDDING).fill(1) },
    { name: 'output.weight', dims: [EMBEDDING, n], data: output },
  ];
  for (let block = 0; block < BLOCKS; block++) {
    const name = (tensor: string) => `blk.${block}.${tensor}.weight`;
    const square = [EMBEDDING, EMBEDDING] as const;
    // Drawn in this order so that a seed keeps meaning the same weights.
    const q = matrix(EMBEDDING, EMBEDDING, QK_RANGE);
    const k = matrix(EMBEDDING, EMBEDDING, QK_RANGE);
    const v = matrix(EMBEDDING, EMBEDDING, V_RANGE);
    const o = blockOutput(EMBEDDING);
    const gate = matrix(EMBEDDING, FEED_FORWARD, FFN_IN_RANGE);
    const up = matrix(EMBEDDING, FEED_FORWARD, FFN_IN_RANGE);
    const down = blockOutput(FEED_FORWARD);
    tensors.push(
      { name: name('attn_norm'), dims: [EMBEDDING], data: blockNorm() },
      { name: name('attn_q'), dims: square, data: q },
      { name: name('attn_k'), dims: square, data: k },
      { name: name('attn_v'), dims: square, data: v },
      { name: name('attn_output'), dims: square, data: o },
      { name: name('ffn_norm'), dims: [EMBEDDING], data: blockNorm() },
      { name: name('ffn_gate'), dims: [EMBEDDING, FEED_FORWARD], data: gate },
      { name: name('ffn_up'), dims: [EMBEDDING, FEED_FORWARD], data: up },
      { name: name('ffn_down'), dims: [FEED_FORWARD, EMBEDDING], data: down },
    );
  }
  await writeFile(path, encode(metadata, tensors));
}

/** The logit bias a token gets through the constant channel (see above). */
function tokenBias(token: string, type: number): number {
  if (type === TokenType.Unknown || token === '<s>') return -10;
  if (token === '</s>') return 0;
  if (type === TokenType.Byte) return -4;
  if (token === '"') return 1.5;
  if (token === ']' || token === '}') return 0;
  if (token === ',') return -1;
  if (token === '\\') return -3;
  if (token === '\u2581') return 0.7;
  if (/^[a-z]$/.test(token)) return 0.5;
  if (/^[A-Z0-9]$/.test(token)) return 0;
  return -1;
}

/** <unk>, <s>, </s>, the byte tokens <0x00>..<0xFF>, then printable ASCII with SPM's ▁ for the space. */
function vocabulary(): { tokens: string[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [TokenType.Unknown, TokenType.Control, TokenType.Control];
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TokenType.Byte);
  }
  tokens.push('\u2581');
  types.push(TokenType.Normal);
  for (let code = 0x21; code < 0x7f; code++) {
    tokens.push(String.fromCharCode(code));
    types.push(TokenType.Normal);
  }
  return { tokens, types };
}

function encode(metadata: Metadata, tensors: readonly Tensor[]): Buffer {
  const out = new ByteWriter();
  out.bytes(Buffer.from('GGUF', 'latin1'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(GGML_TYPE_F32);
    out.u64(offset);
    offset = alignUp(offset + tensor.data.byteLength);
  }
  out.pad();
  for (const tensor of tensors) {
    out.bytes(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    out.pad();
  }
  return out.toBuffer();
}

/** A metadata value: its type tag, then the value (arrays: element type, count, elements). */
function writeValue(out: ByteWriter, value: MetadataValue): void {
  const array = (type: ValueType, items: readonly unknown[]) => {
    out.u32(ValueType.Array);
    out.u32(type);
    out.u64(items.length);
  };
  switch (value.type) {
    case 'u32':
      out.u32(ValueType.Uint32);
      out.u32(value.value);
      break;
    case 'f32':
      out.u32(ValueType.Float32);
      out.f32(value.value);
      break;
    case 'bool':
      out.u32(ValueType.Bool);
      out.bytes(Buffer.from([value.value ? 1 : 0]));
      break;
    case 'string':
      out.u32(ValueType.String);
      out.string(value.value);
      break;
    case 'strings':
      array(ValueType.String, value.value);
      for (const item of value.value) out.string(item);
      break;
    case 'f32s':
      array(ValueType.Float32, value.value);
      for (const item of value.value) out.f32(item);
      break;
    case 'i32s':
      array(ValueType.Int32, value.value);
      for (const item of value.value) out.i32(item);
      break;
  }
}

class ByteWriter {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  bytes(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }
  u32(value: number): void {
    const chunk = Buffer.alloc(4);
    chunk.writeUInt32LE(value);
    this.bytes(chunk);
  }
  i32(value: number): void {
    const chunk = Buffer.alloc(4);
    chunk.writeInt32LE(value);
    this.bytes(chunk);
  }
  u64(value: number): void {
    const chunk = Buffer.alloc(8);
    chunk.writeBigUInt64LE(BigInt(value));
    this.bytes(chunk);
  }
  f32(value: number): void {
    const chunk = Buffer.alloc(4);
    chunk.writeFloatLE(value);
    this.bytes(chunk);
  }
  /** A GGUF string: its UTF-8 byte length as u64, then the bytes, no terminator. */
  string(value: string): void {
    const utf8 = Buffer.from(value, 'utf8');
    this.u64(utf8.length);
    this.bytes(utf8);
  }
  /** Zero bytes up to the next multiple of the alignment. */
  pad(): void {
    this.bytes(Buffer.alloc(alignUp(this.length) - this.length));
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

function alignUp(offset: number): number {
  return Math.ceil(offset / ALIGNMENT) * ALIGNMENT;
}

/** A small seeded PRNG (mulberry32): uniform in [0, 1), the same sequence for the same seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
