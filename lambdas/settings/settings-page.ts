/** The settings page (HTML): being written (issue 9). */
import type { Operation } from '../shared/http/pipeline';

export const settingsPage: Operation = async () => ({ page: true, data: '<!doctype html><title>Settings</title>' });
