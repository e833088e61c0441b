/**
 * Browser code of the settings page: what the page knows of who is signed in, shared by its
 * sections. Nothing here is stored anywhere but in the page's memory.
 */
import type { ResponseOf } from './settings-api';

/** The signed-in account, as GET session answers it. */
export type Session = ResponseOf<'settings-session'>;

/** The kinds of notice a status region shows. */
export type NoticeKind = 'info' | 'error' | 'success';

export const state: {
  /** Who is signed in (null: the sign-in screen). */
  account: Session | null;
  /** The sign-in form asks for a two-factor code (the password was right). */
  codeStep: boolean;
  /** The organizations' load since signing in (the webhook list waits for their names). */
  organizationsReady: Promise<unknown>;
} = { account: null, codeStep: false, organizationsReady: Promise.resolve() };
