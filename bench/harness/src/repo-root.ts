/** The repository's root folder: the harness runs what lives there (gateway/, models/, deploy/triton/, .venvs/). */
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
