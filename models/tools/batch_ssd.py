"""Gives the shipped SSDLite graph a batch dimension (models/ssdlite-mobilenetv2-coco/model.onnx, in place).

The converted TF graph (convert_coco_ssd.py) fixes the batch at 1 in three places: the input and output
shapes, the Reshape targets that start with 1 (feature maps and box predictors), and the anchor decoding,
which flattens the boxes of the whole batch to [N*1917, 4] and transposes them as a matrix. This script
makes dim 0 symbolic (`N`), turns those leading 1s into -1, and decodes [N, 1917, 4] with the transposes
taking three axes. Every operator and weight is left as it is, so a frame alone gives the same outputs as
before, bit for bit (checked below on random inputs, batches of 1 to 3 against the original one by one).

usage: python models/tools/batch_ssd.py SOURCE.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

ANCHORS = 1917


def batchify(source: str, out: str) -> None:
    model = onnx.load(source)
    graph = model.graph
    initializers = {t.name: t for t in graph.initializer}

    def set_shape(name: str, shape: list[int]) -> None:
        initializers[name].CopyFrom(numpy_helper.from_array(np.array(shape, dtype=np.int64), name))

    for node in graph.node:
        if node.op_type == "Reshape":
            shape = numpy_helper.to_array(initializers[node.input[1]]).tolist()
            if node.name in ("Postprocessor/Reshape_1", "Postprocessor/Reshape_2"):
                set_shape(node.input[1], [-1, ANCHORS, 4])
            elif shape[0] == 1 and len(shape) >= 3:
                set_shape(node.input[1], [-1] + shape[1:])
        # The decoder's transposes: [N, 1917, 4] -> [4, N, 1917], and back.
        if node.name == "Postprocessor/Decode/transpose":
            next(a for a in node.attribute if a.name == "perm").ints[:] = [2, 0, 1]
        if node.name == "Postprocessor/Decode/transpose_1":
            next(a for a in node.attribute if a.name == "perm").ints[:] = [1, 2, 0]
    for value in list(graph.input) + list(graph.output):
        dim = value.type.tensor_type.shape.dim[0]
        dim.ClearField("dim_value")
        dim.dim_param = "N"
    del graph.value_info[:]
    onnx.checker.check_model(model)
    onnx.save(model, out)

    rng = np.random.default_rng(0)
    one = ort.InferenceSession(source)
    many = ort.InferenceSession(out)
    for n in (1, 2, 3):
        x = rng.uniform(-1, 1, (n, 300, 300, 3)).astype(np.float32)
        batched = many.run(None, {"image": x})
        for i in range(n):
            alone = one.run(None, {"image": x[i : i + 1]})
            for k, name in enumerate(("scores", "boxes")):
                if not np.array_equal(batched[k][i : i + 1], alone[k]):
                    raise SystemExit(f"{name} of frame {i} in a batch of {n} differs from the original's")
    print(f"wrote {out}: dim 0 symbolic; batches of 1-3 equal to the original frame by frame")


if __name__ == "__main__":
    batchify(sys.argv[1], sys.argv[2])
