#!/usr/bin/env python3
"""ONNX fixture graphs for the tests of Ultralytics-style models, written with the `onnx` package.

Nothing here comes from Ultralytics (no weights, no code): the graphs only have the input, outputs and
`metadata_props` an Ultralytics export has, so the gateway's inspection, manifest inference and decoders
can be tested on real files.

  small/<layout>/model.onnx     A 320x256 (w x h) NCHW input whose outputs are constants chosen by hand, in
                                each layout (yolov8, yolov5, yolo-end2end), 2 classes: the expected
                                detections are in gateway/test/unit/models/infer-manifest.test.ts.
  wrapped-ssd/<layout>/model.onnx
                                The shipped SSDLite MobileNetV2 (input `image` [1,300,300,3] in [-1,1],
                                outputs `scores` [1,1917,90], `boxes` [1,1917,1,4] ymin,xmin,ymax,xmax
                                normalised) inside a graph that takes `images` [1,3,640,640] RGB 0..1
                                (letterboxed by the caller, as Ultralytics does) and emits `output0` in the
                                layout: yolov8 [1,84,8400], yolov5 [1,25200,85], yolo-end2end [1,300,6] (class-
                                aware NMS and a top 300 inside the graph). COCO's 80 names, as a COCO export has.
  broken/<case>/model.onnx      Files a registry must refuse with a reason: not-onnx, truncated, empty, and
                                valid graphs that are no detector we read: segment, pose, obb, classify tasks,
                                input-rank, output-layout.
  legacy-ir3/model.onnx         IR version 3, its initializer also listed as a graph input (as exporters of
                                that time wrote them): inspection must not take it for an image input.

Usage: python onnx_fixtures.py --out DIR --ssd models/ssdlite-mobilenetv2-coco
"""
import argparse
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # the SSD's own opset: its nodes are copied unchanged
IR_VERSION = 8


def metadata(names: dict, imgsz: list, task: str = "detect", end2end: bool = False) -> dict:
    """What an Ultralytics ONNX export writes: each value is Python's str() of the value."""
    return {
        "description": "Sightline test fixture (no Ultralytics weights)",
        "author": "Sightline",
        "version": "8.3.0",
        "license": "AGPL-3.0 License (https://ultralytics.com/license)",
        "stride": "32",
        "task": task,
        "batch": "1",
        "imgsz": str(imgsz),
        "names": str(names),
        "args": str({"batch": 1, "half": False, "dynamic": False, "nms": False}),
        "channels": "3",
        "end2end": str(end2end),
    }


def save(model: onnx.ModelProto, path: str, meta: dict | None = None) -> None:
    for key, value in (meta or {}).items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model, full_check=True)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(model, path)


def make_model(graph: onnx.GraphProto) -> onnx.ModelProto:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="sightline-fixtures")
    model.ir_version = IR_VERSION
    return model


def const(name: str, value) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


# ---------------------------------------------------------------------------------------------------
# Small graphs with known outputs

SMALL_W, SMALL_H = 320, 256
SMALL_NAMES = {0: "cat", 1: "dog's toy"}  # an apostrophe: Python writes this one in double quotes

# (cx, cy, w, h) in input pixels, best class, score. Expected after Ultralytics' predict (conf 0.25,
# class-aware NMS IoU 0.7): anchors 0, 2 and 4; anchor 1 overlaps 0 (same class), 3 is below 0.25.
SMALL_ANCHORS = [
    ((80, 64, 64, 64), 0, 0.9),
    ((84, 64, 64, 64), 0, 0.8),
    ((80, 64, 64, 64), 1, 0.7),
    ((200, 100, 40, 40), 0, 0.2),
    ((240, 192, 80, 64), 1, 0.5),
]


def constant_output_graph(name: str, values: np.ndarray) -> onnx.GraphProto:
    """`output0` = values + 0 x max(images): a graph whose output is known whatever the input."""
    nodes = [
        helper.make_node("ReduceMax", ["images"], ["m"], keepdims=0),
        helper.make_node("Mul", ["m", "zero"], ["m0"]),
        helper.make_node("Add", ["values", "m0"], ["output0"]),
    ]
    return helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, SMALL_H, SMALL_W])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(values.shape))],
        [const("values", values.astype(np.float32)), const("zero", np.float32(0))],
    )


def small_yolov8() -> np.ndarray:
    out = np.zeros((1, 4 + len(SMALL_NAMES), len(SMALL_ANCHORS)), np.float32)
    for a, (box, cls, score) in enumerate(SMALL_ANCHORS):
        out[0, 0:4, a] = box
        out[0, 4:, a] = 0.05
        out[0, 4 + cls, a] = score
    return out


def small_yolov5() -> np.ndarray:
    out = np.zeros((1, len(SMALL_ANCHORS), 5 + len(SMALL_NAMES)), np.float32)
    for a, (box, cls, score) in enumerate(SMALL_ANCHORS):
        # objectness x class = score; the other class lower
        out[0, a, 0:4] = box
        out[0, a, 4] = min(1.0, score / 0.95)
        out[0, a, 5:] = 0.1
        out[0, a, 5 + cls] = score / out[0, a, 4]
    return out


def small_end2end() -> np.ndarray:
    """Best first, padded with zero rows to 300; the overlapping anchor 1 stays (the model kept it)."""
    out = np.zeros((1, 300, 6), np.float32)
    rows = sorted(SMALL_ANCHORS, key=lambda r: -r[2])
    for i, ((cx, cy, w, h), cls, score) in enumerate(rows):
        out[0, i] = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, score, cls]
    return out


def write_small(out_dir: str) -> None:
    imgsz = [SMALL_H, SMALL_W]  # Ultralytics writes [h, w]
    for layout, values, end2end in [
        ("yolov8", small_yolov8(), False),
        ("yolov5", small_yolov5(), False),
        ("yolo-end2end", small_end2end(), True),
    ]:
        model = make_model(constant_output_graph(f"small-{layout}", values))
        save(model, os.path.join(out_dir, "small", layout, "model.onnx"), metadata(SMALL_NAMES, imgsz, end2end=end2end))


# ---------------------------------------------------------------------------------------------------
# The shipped SSD wrapped into each Ultralytics layout

IMGSZ = 640


def wrap_ssd(ssd: onnx.ModelProto, layout: str) -> onnx.ModelProto:
    g = ssd.graph
    (ssd_input,) = [i.name for i in g.input]
    assert ssd_input == "image" and {o.name for o in g.output} == {"scores", "boxes"}
    coco_columns = [j for j, label in enumerate(SSD_LABELS) if label]
    inits = [
        const("wrap/two", np.float32(2)),
        const("wrap/one", np.float32(1)),
        const("wrap/roi", np.zeros(0, np.float32)),
        const("wrap/scales", np.zeros(0, np.float32)),
        const("wrap/size300", np.array([1, 3, 300, 300], np.int64)),
        const("wrap/coco80", np.array(coco_columns, np.int64)),
        const("wrap/boxes_shape", np.array([1, -1, 4], np.int64)),
        const("wrap/xyxy_order", np.array([1, 0, 3, 2], np.int64)),
        const("wrap/imgsz", np.float32(IMGSZ)),
        # [x1, y1, x2, y2] @ M = [cx, cy, w, h]
        const(
            "wrap/to_cxcywh",
            np.array([[0.5, 0, -1, 0], [0, 0.5, 0, -1], [0.5, 0, 1, 0], [0, 0.5, 0, 1]], np.float32),
        ),
    ]
    pre = [
        # A 2x2 mean first, so the bilinear shrink to 300 does not skip pixels (the model's detections
        # stay close to the SSD's own on the fixture photos).
        helper.make_node("AveragePool", ["images"], ["wrap/half"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node(
            "Resize",
            ["wrap/half", "wrap/roi", "wrap/scales", "wrap/size300"],
            ["wrap/small"],
            mode="linear",
            coordinate_transformation_mode="half_pixel",
        ),
        helper.make_node("Transpose", ["wrap/small"], ["wrap/nhwc"], perm=[0, 2, 3, 1]),
        helper.make_node("Mul", ["wrap/nhwc", "wrap/two"], ["wrap/x2"]),
        helper.make_node("Sub", ["wrap/x2", "wrap/one"], [ssd_input]),
    ]
    common = [
        helper.make_node("Gather", ["scores", "wrap/coco80"], ["wrap/s80"], axis=2),  # [1,1917,80]
        helper.make_node("Reshape", ["boxes", "wrap/boxes_shape"], ["wrap/yxyx"]),  # [1,1917,4] normalised
        helper.make_node("Gather", ["wrap/yxyx", "wrap/xyxy_order"], ["wrap/xyxy_n"], axis=2),
        helper.make_node("Mul", ["wrap/xyxy_n", "wrap/imgsz"], ["wrap/xyxy"]),  # input pixels
        helper.make_node("MatMul", ["wrap/xyxy", "wrap/to_cxcywh"], ["wrap/cxcywh"]),
    ]
    anchors = 1917
    if layout == "yolov8":
        total = 8400  # a 640 YOLOv8's anchor count: the rest scored 0
        inits.append(const("wrap/pads", np.array([0, 0, 0, 0, total - anchors, 0], np.int64)))
        post = [
            helper.make_node("Concat", ["wrap/cxcywh", "wrap/s80"], ["wrap/rows"], axis=2),
            helper.make_node("Pad", ["wrap/rows", "wrap/pads"], ["wrap/padded"]),
            helper.make_node("Transpose", ["wrap/padded"], ["output0"], perm=[0, 2, 1]),
        ]
        out_shape = [1, 84, total]
    elif layout == "yolov5":
        total = 25200  # 3 anchors per cell at 640
        inits += [
            const("wrap/pads", np.array([0, 0, 0, 0, total - anchors, 0], np.int64)),
            const("wrap/eps", np.float32(1e-9)),
        ]
        post = [
            # objectness = the best class score, class scores divided by it: their product is the SSD's score
            helper.make_node("ReduceMax", ["wrap/s80"], ["wrap/obj"], axes=[2], keepdims=1),
            helper.make_node("Max", ["wrap/obj", "wrap/eps"], ["wrap/obj_safe"]),
            helper.make_node("Div", ["wrap/s80", "wrap/obj_safe"], ["wrap/cls"]),
            helper.make_node("Concat", ["wrap/cxcywh", "wrap/obj", "wrap/cls"], ["wrap/rows"], axis=2),
            helper.make_node("Pad", ["wrap/rows", "wrap/pads"], ["output0"]),
        ]
        out_shape = [1, total, 85]
    elif layout == "yolo-end2end":
        inits += [
            const("wrap/max_per_class", np.array([100], np.int64)),
            const("wrap/nms_iou", np.array([0.45], np.float32)),  # the SSD's own manifest value
            const("wrap/nms_score", np.array([0.05], np.float32)),
            const("wrap/box_class", np.array([2, 1], np.int64)),
            const("wrap/col1", np.array(1, np.int64)),
            const("wrap/col2", np.array(2, np.int64)),
            const("wrap/k300", np.array([300], np.int64)),
            const("wrap/axis0", np.array([0], np.int64)),
            const("wrap/axis1", np.array([1], np.int64)),
            const("wrap/zeros2", np.array([0, 0], np.int64)),
            const("wrap/zeros1", np.array([0], np.int64)),
        ]
        post = [
            helper.make_node("Transpose", ["wrap/s80"], ["wrap/s80_t"], perm=[0, 2, 1]),  # [1,80,1917]
            helper.make_node(
                "NonMaxSuppression",
                ["wrap/yxyx", "wrap/s80_t", "wrap/max_per_class", "wrap/nms_iou", "wrap/nms_score"],
                ["wrap/selected"],  # [K,3]: batch, class, box
            ),
            helper.make_node("Gather", ["wrap/selected", "wrap/box_class"], ["wrap/box_cls"], axis=1),  # [K,2]
            helper.make_node("Squeeze", ["wrap/s80", "wrap/axis0"], ["wrap/s2"]),  # [1917,80]
            helper.make_node("GatherND", ["wrap/s2", "wrap/box_cls"], ["wrap/sel_scores"]),  # [K]
            helper.make_node("Gather", ["wrap/selected", "wrap/col2"], ["wrap/sel_box"], axis=1),  # [K]
            helper.make_node("Gather", ["wrap/selected", "wrap/col1"], ["wrap/sel_cls"], axis=1),  # [K]
            helper.make_node("Squeeze", ["wrap/xyxy", "wrap/axis0"], ["wrap/xyxy2"]),  # [1917,4]
            helper.make_node("Gather", ["wrap/xyxy2", "wrap/sel_box"], ["wrap/sel_xyxy"], axis=0),  # [K,4]
            # The best min(K, 300), best first
            helper.make_node("Shape", ["wrap/sel_scores"], ["wrap/k_all"]),
            helper.make_node("Min", ["wrap/k_all", "wrap/k300"], ["wrap/k"]),
            helper.make_node("TopK", ["wrap/sel_scores", "wrap/k"], ["wrap/top_scores", "wrap/top"], axis=0),
            helper.make_node("Gather", ["wrap/sel_xyxy", "wrap/top"], ["wrap/top_xyxy"], axis=0),
            helper.make_node("Gather", ["wrap/sel_cls", "wrap/top"], ["wrap/top_cls_i"], axis=0),
            helper.make_node("Cast", ["wrap/top_cls_i"], ["wrap/top_cls"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["wrap/top_scores", "wrap/axis1"], ["wrap/score_col"]),
            helper.make_node("Unsqueeze", ["wrap/top_cls", "wrap/axis1"], ["wrap/cls_col"]),
            helper.make_node("Concat", ["wrap/top_xyxy", "wrap/score_col", "wrap/cls_col"], ["wrap/rows"], axis=1),
            # Zero rows up to 300
            helper.make_node("Sub", ["wrap/k300", "wrap/k"], ["wrap/missing"]),
            helper.make_node("Concat", ["wrap/zeros2", "wrap/missing", "wrap/zeros1"], ["wrap/pads"], axis=0),
            helper.make_node("Pad", ["wrap/rows", "wrap/pads"], ["wrap/rows300"]),
            helper.make_node("Unsqueeze", ["wrap/rows300", "wrap/axis0"], ["output0"]),
        ]
        out_shape = [1, 300, 6]
    else:
        raise ValueError(layout)

    graph = helper.make_graph(
        pre + list(g.node) + common + post,
        f"ssdlite-as-{layout}",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, IMGSZ, IMGSZ])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, out_shape)],
        list(g.initializer) + inits,
    )
    model = helper.make_model(graph, opset_imports=list(ssd.opset_import), producer_name="sightline-fixtures")
    model.ir_version = ssd.ir_version
    return model


def write_wrapped(out_dir: str, ssd_dir: str) -> None:
    ssd = onnx.load(os.path.join(ssd_dir, "model.onnx"))
    names = {i: label for i, label in enumerate(label for label in SSD_LABELS if label)}
    for layout in ["yolov8", "yolov5", "yolo-end2end"]:
        model = wrap_ssd(ssd, layout)
        save(
            model,
            os.path.join(out_dir, "wrapped-ssd", layout, "model.onnx"),
            metadata(names, [IMGSZ, IMGSZ], end2end=layout == "yolo-end2end"),
        )


# ---------------------------------------------------------------------------------------------------
# Files a registry must refuse


def tiny_graph(inputs: list, outputs: list) -> onnx.ModelProto:
    """A valid graph with the given (name, shape) inputs and outputs: each output is a zero constant."""
    nodes, inits = [], []
    for name, shape in outputs:
        inits.append(const(f"{name}/value", np.zeros(shape, np.float32)))
        nodes.append(helper.make_node("Identity", [f"{name}/value"], [name]))
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        inits,
    )
    return make_model(graph)


def write_broken(out_dir: str) -> None:
    base = os.path.join(out_dir, "broken")
    coco2 = {0: "person", 1: "bicycle"}
    images = ("images", [1, 3, 64, 64])

    def path(case: str) -> str:
        os.makedirs(os.path.join(base, case), exist_ok=True)
        return os.path.join(base, case, "model.onnx")

    with open(path("not-onnx"), "wb") as f:
        f.write(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 4)  # the start of a JPEG
    with open(path("empty"), "wb"):
        pass
    # A whole small detector, cut inside its weights
    whole = make_model(constant_output_graph("cut", np.zeros((1, 6, 4096), np.float32)))
    for key, value in metadata(SMALL_NAMES, [SMALL_H, SMALL_W]).items():
        entry = whole.metadata_props.add()
        entry.key, entry.value = key, value
    data = whole.SerializeToString()
    with open(path("truncated"), "wb") as f:
        f.write(data[: len(data) * 2 // 3])

    tasks = {
        "segment": [("output0", [1, 4 + 2 + 32, 84]), ("output1", [1, 32, 16, 16])],
        "pose": [("output0", [1, 4 + 1 + 51, 84])],
        "obb": [("output0", [1, 4 + 2 + 1, 84])],
        "classify": [("output0", [1, 2])],
    }
    for task, outputs in tasks.items():
        save(tiny_graph([images], outputs), path(task), metadata(coco2, [64, 64], task=task))
    save(tiny_graph([("images", [1, 64, 64])], [("output0", [1, 6, 84])]), path("input-rank"), metadata(coco2, [64, 64]))

    # Not broken, but old: before IR version 4 every initializer was also listed as a graph input.
    legacy = tiny_graph([images], [("output0", [1, 6, 84])])
    legacy.graph.input.append(helper.make_tensor_value_info("output0/value", TensorProto.FLOAT, [1, 6, 84]))
    legacy.ir_version = 3
    del legacy.opset_import[:]
    legacy.opset_import.append(helper.make_opsetid("", 8))
    for key, value in metadata(coco2, [64, 64]).items():
        entry = legacy.metadata_props.add()
        entry.key, entry.value = key, value
    os.makedirs(os.path.join(out_dir, "legacy-ir3"), exist_ok=True)
    onnx.save(legacy, os.path.join(out_dir, "legacy-ir3", "model.onnx"))
    save(tiny_graph([images], [("output0", [1, 10, 84, 2])]), path("output-layout"), metadata(coco2, [64, 64]))


def main() -> None:
    global SSD_LABELS
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--ssd", required=True, help="folder of the shipped SSD (model.onnx, labels.json)")
    args = parser.parse_args()
    with open(os.path.join(args.ssd, "labels.json")) as f:
        SSD_LABELS = json.load(f)
    write_small(args.out)
    write_wrapped(args.out, args.ssd)
    write_broken(args.out)
    print(f"wrote fixtures to {args.out}")


SSD_LABELS: list = []

if __name__ == "__main__":
    main()
