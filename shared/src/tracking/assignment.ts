/**
 * Optimal assignment for the tracker's association step.
 *
 * Written here rather than taken from npm because it runs on every frame for every class: the
 * packages (munkres, munkres-js) take nested arrays, copy and pad them square and run the O(n³)
 * Hungarian method on the whole matrix, while association matrices are sparse (a box overlaps only its
 * neighbours). `assignByScore` splits the pairs worth making into independent groups first, so a frame
 * of 50 objects is mostly 1x1 problems, and solves each group with the shortest-augmenting-path
 * Jonker-Volgenant method (the variant of Crouse, "On implementing 2D rectangular assignment
 * algorithms", 2016, which scipy's linear_sum_assignment also uses). The unit tests check both against
 * the munkres package and against brute force.
 */

/**
 * Minimum-cost assignment of a rows x cols matrix (row-major, finite costs): every row of the smaller
 * side gets a distinct column (or every column a distinct row). Returns, per row, its column or -1.
 */
export function linearSumAssignment(cost: ArrayLike<number>, rows: number, cols: number): Int32Array {
  if (rows <= cols) return solveWide(cost, rows, cols, false);
  const colToRow = solveWide(cost, cols, rows, true);
  const rowToCol = new Int32Array(rows).fill(-1);
  for (let c = 0; c < cols; c++) rowToCol[colToRow[c]!] = c;
  return rowToCol;
}

/**
 * Crouse's algorithm for n <= m: one shortest augmenting path per row, with dual potentials u, v.
 * `transposed` reads cost[j][i] instead of cost[i][j], so the tall case needs no copy.
 */
function solveWide(cost: ArrayLike<number>, n: number, m: number, transposed: boolean): Int32Array {
  const at = transposed ? (i: number, j: number) => cost[j * n + i]! : (i: number, j: number) => cost[i * m + j]!;
  const u = new Float64Array(n);
  const v = new Float64Array(m);
  const shortest = new Float64Array(m);
  const path = new Int32Array(m).fill(-1);
  const colForRow = new Int32Array(n).fill(-1);
  const rowForCol = new Int32Array(m).fill(-1);
  const rowVisited = new Uint8Array(n);
  const colVisited = new Uint8Array(m);
  const remaining = new Int32Array(m);

  for (let start = 0; start < n; start++) {
    // Dijkstra-like search for the cheapest path from `start` to a free column in reduced costs.
    let minValue = 0;
    let remainingCount = m;
    for (let k = 0; k < m; k++) remaining[k] = m - k - 1;
    rowVisited.fill(0);
    colVisited.fill(0);
    shortest.fill(Infinity);
    let sink = -1;
    let i = start;
    while (sink === -1) {
      rowVisited[i] = 1;
      let index = -1;
      let lowest = Infinity;
      for (let k = 0; k < remainingCount; k++) {
        const j = remaining[k]!;
        const reduced = minValue + at(i, j) - u[i]! - v[j]!;
        if (reduced < shortest[j]!) {
          path[j] = i;
          shortest[j] = reduced;
        }
        // Ties prefer a free column: the path ends sooner.
        if (shortest[j]! < lowest || (shortest[j] === lowest && rowForCol[j] === -1)) {
          lowest = shortest[j]!;
          index = k;
        }
      }
      minValue = lowest;
      if (index === -1 || minValue === Infinity) throw new Error('assignment: costs must be finite');
      const j = remaining[index]!;
      if (rowForCol[j] === -1) sink = j;
      else i = rowForCol[j]!;
      colVisited[j] = 1;
      remaining[index] = remaining[--remainingCount]!;
    }

    u[start] = u[start]! + minValue;
    for (let r = 0; r < n; r++) {
      if (rowVisited[r] && r !== start) u[r] = u[r]! + minValue - shortest[colForRow[r]!]!;
    }
    for (let c = 0; c < m; c++) {
      if (colVisited[c]) v[c] = v[c]! - (minValue - shortest[c]!);
    }

    // Flip the path: each row on it takes the next column.
    let j = sink;
    for (;;) {
      const r = path[j]!;
      rowForCol[j] = r;
      const previous = colForRow[r]!;
      colForRow[r] = j;
      j = previous;
      if (r === start) break;
    }
  }
  return colForRow;
}

export interface Assignment {
  /** [row, col] pairs, by row. */
  matches: Array<[row: number, col: number]>;
  unmatchedRows: number[];
  unmatchedCols: number[];
}

/**
 * Pairs rows with columns to maximise the total score, where only pairs scoring at least `minScore`
 * may be made (each row and column at most once). For the tracker: rows are tracks, columns
 * detections, the score their IoU. A pair below `minScore` is worth the same as no pair at all, so
 * leaving a row unmatched is always allowed; it is the objective of SORT and ByteTrack (solve, then
 * drop pairs under the threshold) without the drop ever undoing a better choice.
 *
 * `score` is row-major rows x cols.
 */
export function assignByScore(score: ArrayLike<number>, rows: number, cols: number, minScore: number): Assignment {
  // Groups of rows and columns linked by allowed pairs (union-find over rows, then cols).
  const parent = new Int32Array(rows + cols);
  for (let k = 0; k < parent.length; k++) parent[k] = k;
  const find = (k: number): number => {
    while (parent[k] !== k) {
      parent[k] = parent[parent[k]!]!;
      k = parent[k]!;
    }
    return k;
  };
  let edges = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (score[r * cols + c]! >= minScore) {
        edges++;
        const a = find(r);
        const b = find(rows + c);
        if (a !== b) parent[a] = b;
      }
    }
  }

  const rowToCol = new Int32Array(rows).fill(-1);
  if (edges > 0) {
    const groups = new Map<number, { rows: number[]; cols: number[] }>();
    const group = (root: number) => {
      let g = groups.get(root);
      if (!g) groups.set(root, (g = { rows: [], cols: [] }));
      return g;
    };
    for (let r = 0; r < rows; r++) group(find(r)).rows.push(r);
    for (let c = 0; c < cols; c++) group(find(rows + c)).cols.push(c);
    for (const g of groups.values()) {
      if (g.rows.length === 0 || g.cols.length === 0) continue;
      if (g.rows.length === 1 && g.cols.length === 1) {
        rowToCol[g.rows[0]!] = g.cols[0]!;
        continue;
      }
      // Minimise the negated score; a pair not allowed costs 0, the same as leaving both unmatched.
      const n = g.rows.length;
      const m = g.cols.length;
      const sub = new Float64Array(n * m);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < m; j++) {
          const value = score[g.rows[i]! * cols + g.cols[j]!]!;
          sub[i * m + j] = value >= minScore ? -value : 0;
        }
      }
      const solved = linearSumAssignment(sub, n, m);
      for (let i = 0; i < n; i++) {
        const j = solved[i]!;
        if (j >= 0 && sub[i * m + j]! < 0) rowToCol[g.rows[i]!] = g.cols[j]!;
      }
    }
  }

  const matches: Array<[number, number]> = [];
  const unmatchedRows: number[] = [];
  const colTaken = new Uint8Array(cols);
  for (let r = 0; r < rows; r++) {
    const c = rowToCol[r]!;
    if (c >= 0) {
      matches.push([r, c]);
      colTaken[c] = 1;
    } else unmatchedRows.push(r);
  }
  const unmatchedCols: number[] = [];
  for (let c = 0; c < cols; c++) if (!colTaken[c]) unmatchedCols.push(c);
  return { matches, unmatchedRows, unmatchedCols };
}
