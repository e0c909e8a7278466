/**
 * The tests' batch of frames in one KServe request (test/support/kserve-batch.ts) refuses frames that cannot
 * be stacked along dim 0 before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { KserveClient } from '../../../src/engines/kserve-client.ts';
import { inferBatch } from '../../support/kserve-batch.ts';

describe('inferBatch', () => {
  // Refused before anything is sent: no engine needed (nothing listens on the discard port).
  const client = new KserveClient({ url: 'http://127.0.0.1:9' });
  const frame = (dims: number[], dtype: 'float32' | 'uint8' = 'float32') => ({
    image: {
      dtype,
      dims,
      data: dtype === 'float32' ? new Float32Array(dims.reduce((a, b) => a * b, 1)) : new Uint8Array(dims.reduce((a, b) => a * b, 1)),
    },
  });

  it('refuses frames whose tensors cannot be stacked along dim 0', async () => {
    await expect(inferBatch(client, 'm', [])).rejects.toMatchObject({ kind: 'usage', message: 'a batch needs at least one frame' });
    await expect(inferBatch(client, 'm', [frame([1, 2, 2, 3]), frame([1, 3, 2, 3])])).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/frame 1: input image is float32 \[1,3,2,3\], frame 0's float32 \[1,2,2,3\]/),
    });
    await expect(inferBatch(client, 'm', [frame([1, 2]), frame([1, 2], 'uint8')])).rejects.toMatchObject({ kind: 'usage' });
    await expect(inferBatch(client, 'm', [frame([1, 2]), { other: frame([1, 2]).image }])).rejects.toThrow(/frame 1 has no input image/);
  });
});
