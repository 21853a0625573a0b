/* ks-args.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The encoded argument store: every event's args text, kept as a small
 * record. Most args objects repeat a few shapes and differ only in their
 * numbers and short strings, so a record is the number of its shape (the
 * text with its numbers and string values taken out, interned once) and
 * one varint per value taken out. Text that is not a JSON object is kept
 * as it came. Decoding gives back every byte string exactly as it was
 * added, valid JSON or not.
 *
 * Ids are 32-bit, 0 meaning none. Adding is for one thread; once sealed,
 * the store is read-only and may be read from any thread. */

typedef struct _KsArgsStore KsArgsStore;

KsArgsStore *ks_args_store_new             (void);
void         ks_args_store_free            (KsArgsStore       *self);
/* Stores @text (@len bytes, any bytes) and sets @id to its id: 0 when
 * @len is 0 or the store is past 4 GiB. FALSE when memory ran out. */
gboolean     ks_args_store_add             (KsArgsStore       *self,
                                            const char        *text,
                                            gsize              len,
                                            guint32           *id);

/* Adding in two steps, for text read on another thread than the store's:
 * ks_args_prepare() walks the text on any thread, each with a scratch of
 * its own, and ks_args_store_add_prepared() then adds, on the store's
 * thread, the record that ks_args_store_add() would. */
typedef struct _KsArgsScratch KsArgsScratch;

KsArgsScratch *ks_args_scratch_new         (void);
void           ks_args_scratch_free        (KsArgsScratch     *scratch);
/* Walks @text (@len bytes) into @scratch: the size of what it prepared
 * to, which ks_args_prepared_write() writes out; 0 when @text does not
 * prepare (ks_args_store_add_prepared() then adds it as it is). */
gsize          ks_args_prepare             (KsArgsScratch     *scratch,
                                            const char        *text,
                                            gsize              len);
void           ks_args_prepared_write      (const KsArgsScratch *scratch,
                                            guint8            *out);
/* Adds @text as ks_args_store_add() does, from the @prepared_len bytes
 * that ks_args_prepare() gave for it (0: none). */
gboolean       ks_args_store_add_prepared  (KsArgsStore       *self,
                                            const char        *text,
                                            gsize              len,
                                            const guint8      *prepared,
                                            gsize              prepared_len,
                                            guint32           *id);

/* Adding through a dictionary of a part of the texts (a chunk of a file,
 * on the thread that parses it): ks_args_local_prepare() walks a text as
 * ks_args_prepare() does and numbers its shape and string values in
 * @local, and ks_args_store_add_local() adds it on the store's thread,
 * with the record and dictionary that ks_args_store_add() gives, through
 * @map, which turns the part's numbers into the store's as they are
 * first needed: each value of the part is looked up in the store once. */
typedef struct _KsArgsLocal KsArgsLocal;

KsArgsLocal   *ks_args_local_new           (void);
void           ks_args_local_free          (KsArgsLocal       *local);
/* Empties @local for another part. */
void           ks_args_local_clear         (KsArgsLocal       *local);
guint32        ks_args_local_get_n_entries (const KsArgsLocal *local);
/* The bytes of entry @n (from 1). */
const guint8  *ks_args_local_get_entry     (const KsArgsLocal *local,
                                            guint32            n,
                                            gsize             *len);
/* Appends to @out the record of @text (@len bytes) in @local's numbers:
 * the bytes appended; 0 when @text does not prepare (it is then added
 * in one step). */
gsize          ks_args_local_prepare       (KsArgsLocal       *local,
                                            KsArgsScratch     *scratch,
                                            const char        *text,
                                            gsize              len,
                                            GByteArray        *out);
/* Adds @text from the @record_len bytes of @record that
 * ks_args_local_prepare() gave for it in @local (0: none). @map holds
 * ks_args_local_get_n_entries() + 1 numbers, zero at first, and is kept
 * from text to text of the same @local. */
gboolean       ks_args_store_add_local     (KsArgsStore       *self,
                                            const KsArgsLocal *local,
                                            guint32           *map,
                                            const char        *text,
                                            gsize              len,
                                            const guint8      *record,
                                            gsize              record_len,
                                            guint32           *id);

/* Frees what only adding needs and gives back unused room. */
void         ks_args_store_seal            (KsArgsStore       *self);
/* Appends the text of @id (not 0) to @out. */
void         ks_args_store_append          (const KsArgsStore *self,
                                            guint32            id,
                                            GString           *out);
/* Sets @scratch to the text of @id and returns scratch->str; NULL (and
 * @scratch emptied) when @id is 0. */
const char  *ks_args_store_get             (const KsArgsStore *self,
                                            guint32            id,
                                            GString           *scratch);
gsize        ks_args_store_get_memory_size (const KsArgsStore *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsArgsStore, ks_args_store_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsArgsScratch, ks_args_scratch_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsArgsLocal, ks_args_local_free)

G_END_DECLS
