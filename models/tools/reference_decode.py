#!/usr/bin/env python3
"""Reference detections of the wrapped-SSD fixtures (onnx_fixtures.py) on the fixture photos, written
independently of Sightline's TypeScript: OpenCV decoding and letterbox exactly as Ultralytics' predict
does it (LetterBox with gray 114 bars, cv2.resize INTER_LINEAR), onnxruntime, then each layout's decode
and class-aware NMS in numpy with Ultralytics' predict defaults (conf 0.25, IoU 0.7, max_det 300), boxes
scaled back to the photo (scale_boxes) and clipped.

Usage: python reference_decode.py --fixtures DIR --photos shared/fixtures/photos --out DIR/reference.json
Writes {layout: {photo: [{label, classId, score, box: [x1, y1, x2, y2]}]}}, best first.
"""
import argparse
import ast
import json
import os

import cv2
import numpy as np
import onnxruntime as ort

CONF, IOU, MAX_DET = 0.25, 0.7, 300
MAX_WH = 7680  # Ultralytics' per-class box offset for class-aware NMS in one pass


def letterbox(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Ultralytics' LetterBox(auto=False, scaleup=True, center=True): returns the padded image, the gain, (left, top)."""
    h, w = image.shape[:2]
    new_h, new_w = size
    r = min(new_h / h, new_w / w)
    unpad_w, unpad_h = int(round(w * r)), int(round(h * r))
    dw, dh = (new_w - unpad_w) / 2, (new_h - unpad_h) / 2
    if (w, h) != (unpad_w, unpad_h):
        image = cv2.resize(image, (unpad_w, unpad_h), interpolation=cv2.INTER_LINEAR)
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    image = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return image, r, (left, top)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Greedy NMS, torchvision.ops.nms semantics: best first, drop what overlaps a kept box by more than `iou`."""
    order = np.argsort(-scores, kind="stable")
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.clip(xx2 - xx1, 0, None) * np.clip(yy2 - yy1, 0, None)
        overlap = inter / (areas[i] + areas[rest] - inter)
        order = rest[overlap <= iou]
    return np.array(keep, dtype=np.int64)


def xywh_to_xyxy(b: np.ndarray) -> np.ndarray:
    return np.stack([b[:, 0] - b[:, 2] / 2, b[:, 1] - b[:, 3] / 2, b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2], axis=1)


def class_aware_nms(boxes: np.ndarray, scores: np.ndarray, classes: np.ndarray) -> np.ndarray:
    offset = boxes + classes[:, None].astype(np.float32) * MAX_WH
    return nms(offset, scores, IOU)[:MAX_DET]


def best_class_detections(xywh: np.ndarray, class_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each candidate as its best class, kept above CONF, then class-aware NMS: what both YOLO layouts share."""
    classes = class_scores.argmax(1)
    scores = class_scores.max(1)
    keep = scores > CONF
    boxes, scores, classes = xywh_to_xyxy(xywh[keep]), scores[keep], classes[keep]
    i = class_aware_nms(boxes, scores, classes)
    return boxes[i], scores[i], classes[i]


def decode(layout: str, out: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """-> boxes (x1, y1, x2, y2 in input pixels), scores, classes, best first."""
    if layout == "yolov8":
        pred = out[0].T  # [N, 4+nc]
        return best_class_detections(pred[:, :4], pred[:, 4:])
    if layout == "yolov5":
        pred = out[0]  # [N, 5+nc]
        pred = pred[pred[:, 4] > CONF]
        return best_class_detections(pred[:, :4], pred[:, 5:] * pred[:, 4:5])
    if layout == "yolo-end2end":
        pred = out[0]  # [K, 6]
        pred = pred[pred[:, 4] > CONF][:MAX_DET]
        return pred[:, :4], pred[:, 4], pred[:, 5].round().astype(np.int64)
    raise ValueError(layout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--photos", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    photos = sorted(p for p in os.listdir(args.photos) if p.endswith(".jpg"))
    result = {}
    for layout in ["yolov8", "yolov5", "yolo-end2end"]:
        path = os.path.join(args.fixtures, "wrapped-ssd", layout, "model.onnx")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        meta = session.get_modelmeta().custom_metadata_map
        names = ast.literal_eval(meta["names"])
        imgsz = tuple(ast.literal_eval(meta["imgsz"]))
        result[layout] = {}
        for photo in photos:
            bgr = cv2.imread(os.path.join(args.photos, photo), cv2.IMREAD_COLOR)
            h, w = bgr.shape[:2]
            padded, gain, (left, top) = letterbox(bgr, imgsz)
            tensor = padded[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255  # BGR HWC -> RGB NCHW 0..1
            (out,) = session.run(["output0"], {"images": np.ascontiguousarray(tensor)})
            boxes, scores, classes = decode(layout, out)
            # scale_boxes: back to the photo, clipped to it
            boxes = (boxes - np.array([left, top, left, top], np.float32)) / gain
            boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
            boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
            result[layout][photo] = [
                {"label": names[int(c)], "classId": int(c), "score": round(float(s), 5), "box": [round(float(v), 3) for v in b]}
                for b, s, c in zip(boxes, scores, classes)
            ]
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
