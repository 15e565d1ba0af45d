#ifndef WORLDCUP_CNCURSESW_SHIM_H
#define WORLDCUP_CNCURSESW_SHIM_H

// SwiftPM drops pkg-config's -D_XOPEN_SOURCE, so the wide-character API
// (cchar_t, wget_wch, mvwaddnwstr) must be switched on by hand before the include.
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// glibc declares wcwidth only under _XOPEN_SOURCE, which SwiftPM does not pass.
extern int wcwidth(wchar_t c);

static inline int worldcup_wcwidth(int codepoint) { return wcwidth((wchar_t)codepoint); }

// The global stdscr, read through a function: Swift 6 rejects direct use of mutable C globals.
static inline WINDOW *worldcup_stdscr(void) { return stdscr; }

// Macros Swift cannot import, as functions.
static inline int worldcup_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int worldcup_getmaxx(WINDOW *w) { return getmaxx(w); }
static inline attr_t worldcup_a_reverse(void) { return A_REVERSE; }
static inline attr_t worldcup_a_bold(void) { return A_BOLD; }
static inline attr_t worldcup_a_underline(void) { return A_UNDERLINE; }
static inline mmask_t worldcup_button1_clicked(void) { return BUTTON1_CLICKED; }
static inline mmask_t worldcup_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t worldcup_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t worldcup_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline chtype worldcup_a_dim(void) { return A_DIM; }
static inline int worldcup_color_pair(int n) { return COLOR_PAIR(n); }
// The number of colours start_color found (a mutable C global).
static inline int worldcup_colors(void) { return COLORS; }

#endif
