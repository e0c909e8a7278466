"""Describes a Triton model repository for deploy/test/triton-model-repository.test.ts, as JSON on stdout.

    python describe_triton_repository.py REPOSITORY

For each <name>/config.pbtxt: the config parsed strictly as Triton's ModelConfig message (tritonclient's
model_config_pb2: an unknown field, a misspelt enum value or a syntax error fails here, as it fails Triton),
and the graph of <name>/1/model.onnx as onnxruntime reads it (input and output names, element types, shapes
with symbolic dims as null). Runs in the venv of deploy/triton/requirements.txt.
"""

import json
import sys
from pathlib import Path

import onnxruntime as ort
from google.protobuf import json_format, text_format
from tritonclient.grpc import model_config_pb2


def value_infos(values) -> list[dict]:
    return [{"name": v.name, "type": v.type, "shape": [d if isinstance(d, int) else None for d in v.shape]} for v in values]


def describe(folder: Path) -> dict:
    config = text_format.Parse((folder / "config.pbtxt").read_text(), model_config_pb2.ModelConfig())
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(folder / "1" / "model.onnx"), options, providers=["CPUExecutionProvider"])
    return {
        "config": json_format.MessageToDict(config, preserving_proto_field_name=True),
        "graph": {"inputs": value_infos(session.get_inputs()), "outputs": value_infos(session.get_outputs())},
        "versions": sorted(p.name for p in folder.iterdir() if p.is_dir()),
    }


def main(repository: str) -> None:
    root = Path(repository)
    print(json.dumps({folder.name: describe(folder) for folder in sorted(root.iterdir()) if folder.is_dir()}))


if __name__ == "__main__":
    main(sys.argv[1])
