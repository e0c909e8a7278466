"""Drives a KServe v2 server with the stock tritonclient[http], as a user of Triton would, and prints JSON.

usage: tritonclient_probe.py URL MODEL IMAGE [TOKEN]
Every call the gateway's v2 endpoints offer: server live/ready/metadata, model ready/metadata, and infer
with the image sent binary (the client's default) and as JSON (Base64 text, binary_data=False), outputs
asked for binary and as JSON.
"""
import base64
import json
import sys

import numpy as np
import tritonclient.http as http


def main() -> None:
    url, model, image_path = sys.argv[1:4]
    token = sys.argv[4] if len(sys.argv) > 4 else None
    auth = {"Authorization": f"Bearer {token}"} if token else {}

    def headers() -> dict | None:
        # A dict of its own per call: tritonclient writes Inference-Header-Content-Length into the one it is given.
        return dict(auth) or None

    client = http.InferenceServerClient(url.removeprefix("http://"))
    with open(image_path, "rb") as f:
        image = f.read()

    def infer(binary_in: bool, binary_out: bool) -> dict:
        tensor = http.InferInput("image", [1], "BYTES")
        payload = image if binary_in else base64.b64encode(image)
        tensor.set_data_from_numpy(np.array([payload], dtype=np.object_), binary_data=binary_in)
        outputs = [http.InferRequestedOutput(name, binary_data=binary_out) for name in ("boxes", "scores", "classes", "labels")]
        result = client.infer(model, [tensor], outputs=outputs, headers=headers())
        labels = result.as_numpy("labels")
        return {
            "boxes": result.as_numpy("boxes").tolist(),
            "scores": result.as_numpy("scores").tolist(),
            "classes": result.as_numpy("classes").tolist(),
            "labels": [label.decode() if isinstance(label, bytes) else str(label) for label in labels],
            "boxesShape": list(result.as_numpy("boxes").shape),
            "boxesDtype": str(result.as_numpy("boxes").dtype),
            "classesDtype": str(result.as_numpy("classes").dtype),
        }

    out = {
        "live": client.is_server_live(headers=headers()),
        "ready": client.is_server_ready(headers=headers()),
        "serverMetadata": client.get_server_metadata(headers=headers()),
        "modelReady": client.is_model_ready(model, headers=headers()),
        "modelMetadata": client.get_model_metadata(model, headers=headers()),
        "binary": infer(True, True),
        "json": infer(False, False),
    }
    try:
        client.infer("no-such-model", [], headers=headers())
    except Exception as error:  # the stock client's own exception, with the server's message
        out["unknownModel"] = str(error)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
