/* ks-json-writer.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <yajl/yajl_tree.h>

G_BEGIN_DECLS

/* Every JSON text Kinescope writes (stats and info --format json, the
 * progress lines of record --progress-fd) comes from here, on yajl_gen:
 * compact, one document, strings checked to be UTF-8. Names that are
 * not UTF-8 are made so (U+FFFD), and DEL and the C1 controls, which
 * JSON allows raw but a terminal acts on, are written as \u007f and
 * \u0080–\u009f, so the text is valid JSON and inert on a terminal.
 *
 * @key names the member inside an object; it is NULL for an item of an
 * array and for the top-level value. */

typedef struct _KsJsonWriter KsJsonWriter;

KsJsonWriter *ks_json_writer_new        (void);
void          ks_json_writer_free       (KsJsonWriter *self);

void          ks_json_begin_object      (KsJsonWriter *self,
                                         const char   *key);
void          ks_json_end_object        (KsJsonWriter *self);
void          ks_json_begin_array       (KsJsonWriter *self,
                                         const char   *key);
void          ks_json_end_array         (KsJsonWriter *self);
/* NULL writes null. */
void          ks_json_string            (KsJsonWriter *self,
                                         const char   *key,
                                         const char   *value);
void          ks_json_int               (KsJsonWriter *self,
                                         const char   *key,
                                         gint64        value);
/* With @decimals digits after the point; NaN and infinities as null. */
void          ks_json_double            (KsJsonWriter *self,
                                         const char   *key,
                                         double        value,
                                         guint         decimals);
void          ks_json_bool              (KsJsonWriter *self,
                                         const char   *key,
                                         gboolean      value);
void          ks_json_null              (KsJsonWriter *self,
                                         const char   *key);

/* The text so far; the document must be complete. */
const char   *ks_json_writer_get_text   (KsJsonWriter *self);
/* The text, and the writer freed. */
char         *ks_json_writer_free_to_text (KsJsonWriter *self);

/* Reading: the value of a JSON text, or NULL with @error saying why.
 * Arrays and objects nest at most KS_JSON_MAX_DEPTH deep (trace
 * arguments, summaries): walking a tree takes a stack frame a level. */
#define KS_JSON_MAX_DEPTH 128

yajl_val      ks_json_parse             (const char   *text,
                                         GError      **error);
/* Member @key of the object @object when it has that type, else NULL or
 * @fallback. */
const char   *ks_json_get_string        (yajl_val      object,
                                         const char   *key);
gint64        ks_json_get_int           (yajl_val      object,
                                         const char   *key,
                                         gint64        fallback);
double        ks_json_get_double        (yajl_val      object,
                                         const char   *key,
                                         double        fallback);
gboolean      ks_json_get_bool          (yajl_val      object,
                                         const char   *key,
                                         gboolean      fallback);
yajl_val      ks_json_get_array         (yajl_val      object,
                                         const char   *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsJsonWriter, ks_json_writer_free)

G_END_DECLS
