/**
 * Characters no name, path or title a person reads may hold: C0 and C1 controls and DEL, and the
 * bidirectional overrides and isolates, with which a text shows as another (Trojan Source,
 * CVE-2021-42574; `invoice‮fdp.exe` reads as `invoiceexe.pdf`). Such texts are shown in tables,
 * headers, logs and model prompts.
 */
export const UNSHOWABLE = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;
