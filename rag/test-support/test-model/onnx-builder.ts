import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
/** An operator attribute, typed as ONNX types it. */
export type Attribute = { readonly int: number } | { readonly float: number } | { readonly ints: readonly number[] };

export const FLOAT = onnx.TensorProto.DataType.FLOAT;
export const INT8 = onnx.TensorProto.DataType.INT8;
export const INT64 = onnx.TensorProto.DataType.INT64;

/**
 * Collects the nodes and constant tensors of one ONNX graph in the order they
 * are added (which must be topological) and encodes it as a model file.
 */
export class OnnxGraphBuilder {
  readonly #nodes: onnxProto.onnx.INodeProto[] = [];
  readonly #initializers: onnxProto.onnx.ITensorProto[] = [];
  #count = 0;

  /** Adds `op` on the named inputs; returns the name of its (single) output. */
  op(opType: string, inputs: readonly string[], attributes: Readonly<Record<string, Attribute>> = {}): string {
    this.#count += 1;
    const output = `${opType.toLowerCase()}_${this.#count}`;
    this.#nodes.push({
      opType,
      name: output,
      input: [...inputs],
      output: [output],
      attribute: Object.entries(attributes).map(([name, value]) => attribute(name, value)),
    });
    return output;
  }

  /** Renames the output of the last node (graph outputs need their public name). */
  nameLast(name: string): string {
    const last = this.#nodes.at(-1);
    if (!last) throw new Error('no node to name');
    last.output = [name];
    return name;
  }

  /** A constant tensor; `bytes` are the values in little-endian order. */
  constant(name: string, dataType: number, dims: readonly number[], bytes: Uint8Array): string {
    this.#initializers.push({ name, dataType, dims: [...dims], rawData: bytes });
    return name;
  }

  floats(name: string, dims: readonly number[], values: readonly number[]): string {
    return this.constant(name, FLOAT, dims, new Uint8Array(Float32Array.from(values).buffer));
  }

  int64s(name: string, dims: readonly number[], values: readonly number[]): string {
    return this.constant(name, INT64, dims, new Uint8Array(BigInt64Array.from(values, BigInt).buffer));
  }

  /**
   * The model file: `inputs` and `outputs` map names to element types and
   * symbolic or fixed dimensions; operators from the default domain at `opset`.
   */
  encode(options: {
    readonly name: string;
    readonly opset: number;
    readonly inputs: Readonly<Record<string, TensorType>>;
    readonly outputs: Readonly<Record<string, TensorType>>;
  }): Uint8Array {
    return onnx.ModelProto.encode({
      // IR version 8: the one released with opset 17 (LayerNormalization), and the newest this schema describes.
      irVersion: 8,
      producerName: 'notegate test model',
      opsetImport: [{ domain: '', version: options.opset }],
      graph: {
        name: options.name,
        node: this.#nodes,
        initializer: this.#initializers,
        input: Object.entries(options.inputs).map(([name, type]) => valueInfo(name, type)),
        output: Object.entries(options.outputs).map(([name, type]) => valueInfo(name, type)),
      },
    }).finish();
  }
}

export interface TensorType {
  readonly elementType: number;
  readonly dims: readonly (number | string)[];
}

function valueInfo(name: string, type: TensorType): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: type.elementType,
        shape: { dim: type.dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attribute(name: string, value: Attribute): onnxProto.onnx.IAttributeProto {
  const { AttributeType } = onnx.AttributeProto;
  if ('int' in value) return { name, type: AttributeType.INT, i: value.int };
  if ('float' in value) return { name, type: AttributeType.FLOAT, f: value.float };
  return { name, type: AttributeType.INTS, ints: [...value.ints] };
}
