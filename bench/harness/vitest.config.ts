import { defineConfig } from 'vitest/config';
import { gatewayTestProjects } from '../../vitest.projects.ts';

export default defineConfig({ test: { projects: gatewayTestProjects() } });
