/* ks-roofline-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-roofline-page"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ks-format.h"
#include "ks-page-table.h"
#include "ks-report-roofline.h"
#include "ks-roofline-page.h"
#include "ks-row-item.h"

#define MARGIN_LEFT   48
#define MARGIN_RIGHT  12
#define MARGIN_TOP    10
#define MARGIN_BOTTOM 30
#define MAX_RADIUS    14.0
#define MIN_RADIUS    3.0

struct _KsRooflinePage
{
  KsPage               parent_instance;

  GtkLabel            *peak_label;
  GtkDrawingArea      *plot;
  GtkLabel            *mfu_label;
  GtkLabel            *advice_label;
  GtkColumnView       *view;

  KsPageTable          table;
  GCancellable        *cancellable;
  KsRoofline          *roofline;

  /* Borrowed from KsPage, set by refill */
  KsTrace             *trace;
};

G_DEFINE_FINAL_TYPE (KsRooflinePage, ks_roofline_page, KS_TYPE_PAGE)

enum { PROP_0, PROP_ROOFLINE, N_PROPS };
static GParamSpec *properties[N_PROPS];

/* The plot's axes: decades of FLOP/byte across, of TFLOP/s up. */
typedef struct
{
  double x0, y0, w, h;
  double lx_min, lx_max;
  double ly_min, ly_max;
} Axes;

static gboolean
has_point (const KsRooflineRow *row)
{
  return row->flops > 0 && row->intensity > 0 && row->tflops > 0;
}

static gboolean
compute_axes (KsRooflinePage *self,
              int             width,
              int             height,
              Axes           *a)
{
  const KsPeak *peak;
  const KsRooflineRow *rows;
  guint n;
  double x_min = G_MAXDOUBLE, x_max = 0, y_min = G_MAXDOUBLE, y_max = 0;

  if (self->roofline == NULL || width <= MARGIN_LEFT + MARGIN_RIGHT + 20 || height <= MARGIN_TOP + MARGIN_BOTTOM + 20)
    return FALSE;
  peak = ks_roofline_get_peak (self->roofline);
  rows = ks_roofline_get_operators (self->roofline, FALSE, &n);
  for (guint i = 0; i < n; i++)
    if (has_point (&rows[i]))
      {
        double ridge = ks_peak_get_ridge (peak, rows[i].dtype);
        double top = ks_peak_get_tflops (peak, rows[i].dtype);

        x_min = MIN (x_min, rows[i].intensity);
        x_max = MAX (x_max, rows[i].intensity);
        y_min = MIN (y_min, rows[i].tflops);
        y_max = MAX (y_max, rows[i].tflops);
        if (ridge > 0)
          {
            x_min = MIN (x_min, ridge / 10);
            x_max = MAX (x_max, ridge * 10);
          }
        y_max = MAX (y_max, top);
      }
  if (x_max <= 0)
    return FALSE;
  a->lx_min = floor (log10 (x_min));
  a->lx_max = MAX (ceil (log10 (x_max)), a->lx_min + 1);
  a->ly_min = floor (log10 (y_min));
  a->ly_max = MAX (ceil (log10 (y_max * 1.2)), a->ly_min + 1);
  a->x0 = MARGIN_LEFT;
  a->y0 = MARGIN_TOP;
  a->w = width - MARGIN_LEFT - MARGIN_RIGHT;
  a->h = height - MARGIN_TOP - MARGIN_BOTTOM;
  return TRUE;
}

static double
axis_x (const Axes *a,
        double      intensity)
{
  return a->x0 + (log10 (intensity) - a->lx_min) / (a->lx_max - a->lx_min) * a->w;
}

static double
axis_y (const Axes *a,
        double      tflops)
{
  return a->y0 + a->h - (log10 (tflops) - a->ly_min) / (a->ly_max - a->ly_min) * a->h;
}

static double
point_radius (const KsRooflineRow *row,
              gint64               longest)
{
  return MIN_RADIUS + (MAX_RADIUS - MIN_RADIUS) * sqrt (row->device_ns / (double)MAX (longest, 1));
}

static gint64
longest_time (const KsRooflineRow *rows,
              guint                n)
{
  gint64 longest = 0;

  for (guint i = 0; i < n; i++)
    if (has_point (&rows[i]))
      longest = MAX (longest, rows[i].device_ns);
  return longest;
}

gboolean
ks_roofline_page_get_point (KsRooflinePage *self,
                            guint           index,
                            double         *x,
                            double         *y)
{
  const KsRooflineRow *rows;
  guint n;
  Axes a;

  g_return_val_if_fail (KS_IS_ROOFLINE_PAGE (self), FALSE);

  if (!compute_axes (self, gtk_widget_get_width (GTK_WIDGET (self->plot)),
                     gtk_widget_get_height (GTK_WIDGET (self->plot)), &a))
    return FALSE;
  rows = ks_roofline_get_operators (self->roofline, FALSE, &n);
  if (index >= n || !has_point (&rows[index]))
    return FALSE;
  *x = axis_x (&a, rows[index].intensity);
  *y = axis_y (&a, rows[index].tflops);
  return TRUE;
}

/* The operator row whose point is under (@x, @y): of overlapping ones,
 * the one whose centre is nearest. */
static guint
point_at (KsRooflinePage *self,
          double          x,
          double          y)
{
  const KsRooflineRow *rows;
  guint n, best = G_MAXUINT;
  double best_distance = G_MAXDOUBLE;
  gint64 longest;
  Axes a;

  if (!compute_axes (self, gtk_widget_get_width (GTK_WIDGET (self->plot)),
                     gtk_widget_get_height (GTK_WIDGET (self->plot)), &a))
    return G_MAXUINT;
  rows = ks_roofline_get_operators (self->roofline, FALSE, &n);
  longest = longest_time (rows, n);
  for (guint i = 0; i < n; i++)
    if (has_point (&rows[i]))
      {
        double r = point_radius (&rows[i], longest);
        double dx = axis_x (&a, rows[i].intensity) - x, dy = axis_y (&a, rows[i].tflops) - y;

        if (dx * dx + dy * dy <= (r + 2) * (r + 2) && dx * dx + dy * dy < best_distance)
          {
            best = i;
            best_distance = dx * dx + dy * dy;
          }
      }
  return best;
}

static void
draw_label (cairo_t       *cr,
            const GdkRGBA *fg,
            double         alpha,
            double         x,
            double         y,
            const char    *text,
            double         align)   /* 0 left, 0.5 centred, 1 right of x */
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans 8");
  int w, h;

  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, alpha);
  cairo_move_to (cr, x - align * w, y - h / 2.0);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_free (font);
  g_object_unref (layout);
}

static void
decade_text (double  decade,
             char   *buf,
             gsize   size)
{
  g_ascii_formatd (buf, size, "%g", pow (10, decade));
}

static void
bound_color (KsBound  bound,
             GdkRGBA *color)
{
  /* the palette's blue and orange, as the other charts use */
  gdk_rgba_parse (color, bound == KS_BOUND_COMPUTE ? "#3584e4" : bound == KS_BOUND_MEMORY ? "#e66100" : "#9a9996");
}

static void
draw_cb (GtkDrawingArea *area,
         cairo_t        *cr,
         int             width,
         int             height,
         gpointer        user_data)
{
  KsRooflinePage *self = user_data;
  const KsPeak *peak;
  const KsRooflineRow *rows;
  guint n;
  gint64 longest;
  gboolean drawn[KS_N_DTYPES] = { FALSE };
  KsDtype main_dtype = KS_DTYPE_UNKNOWN;
  gint64 main_ns = -1;
  GdkRGBA fg;
  Axes a;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!compute_axes (self, width, height, &a))
    return;
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  peak = ks_roofline_get_peak (self->roofline);
  rows = ks_roofline_get_operators (self->roofline, FALSE, &n);
  longest = longest_time (rows, n);

  /* decades */
  cairo_set_line_width (cr, 1);
  for (double d = a.lx_min; d <= a.lx_max; d++)
    {
      double x = round (axis_x (&a, pow (10, d))) + 0.5;

      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.12);
      cairo_move_to (cr, x, a.y0);
      cairo_line_to (cr, x, a.y0 + a.h);
      cairo_stroke (cr);
      decade_text (d, buf, sizeof buf);
      draw_label (cr, &fg, 0.7, x, a.y0 + a.h + 8, buf, d == a.lx_max ? 1 : 0.5);
    }
  for (double d = a.ly_min; d <= a.ly_max; d++)
    {
      double y = round (axis_y (&a, pow (10, d))) + 0.5;

      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.12);
      cairo_move_to (cr, a.x0, y);
      cairo_line_to (cr, a.x0 + a.w, y);
      cairo_stroke (cr);
      decade_text (d, buf, sizeof buf);
      draw_label (cr, &fg, 0.7, a.x0 - 4, y, buf, 1);
    }
  draw_label (cr, &fg, 0.7, a.x0 + a.w, a.y0 + a.h + 21, _("FLOP/byte"), 1);
  draw_label (cr, &fg, 0.7, a.x0 + 4, a.y0 + 6, _("TFLOP/s"), 0);

  /* a roof per type that has points: the bandwidth's slope, then the
   * type's peak from the ridge point on */
  for (guint i = 0; i < n; i++)
    if (has_point (&rows[i]) && rows[i].device_ns > main_ns && ks_peak_get_ridge (peak, rows[i].dtype) > 0)
      {
        main_ns = rows[i].device_ns;
        main_dtype = rows[i].dtype;
      }
  cairo_save (cr);
  cairo_rectangle (cr, a.x0, a.y0, a.w, a.h);
  cairo_clip (cr);
  for (guint i = 0; i < n; i++)
    {
      KsDtype dtype = rows[i].dtype;
      double top = ks_peak_get_tflops (peak, dtype), ridge = ks_peak_get_ridge (peak, dtype);

      if (!has_point (&rows[i]) || drawn[dtype] || ridge <= 0)
        continue;
      drawn[dtype] = TRUE;
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, dtype == main_dtype ? 0.8 : 0.35);
      cairo_set_line_width (cr, dtype == main_dtype ? 2 : 1);
      cairo_move_to (cr, axis_x (&a, pow (10, a.lx_min)), axis_y (&a, pow (10, a.lx_min) * peak->gbps / 1e3));
      cairo_line_to (cr, axis_x (&a, ridge), axis_y (&a, top));
      cairo_line_to (cr, a.x0 + a.w, axis_y (&a, top));
      cairo_stroke (cr);
    }
  cairo_restore (cr);
  for (guint d = 1; d < KS_N_DTYPES; d++)
    if (drawn[d])
      {
        double top = ks_peak_get_tflops (peak, d), ridge = ks_peak_get_ridge (peak, d);
        g_autofree char *roof = NULL;

        g_ascii_formatd (buf, sizeof buf, "%g", top);
        roof = g_strdup_printf ("%s %s", ks_dtype_to_string (d), buf);
        draw_label (cr, &fg, 0.8, a.x0 + a.w - 2, axis_y (&a, top) - 8, roof, 1);
        if (d == main_dtype)
          {
            g_autofree char *text = NULL;

            /* the ridge point */
            cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.9);
            cairo_new_path (cr);
            cairo_arc (cr, axis_x (&a, ridge), axis_y (&a, top), 3.5, 0, 2 * G_PI);
            cairo_fill (cr);
            g_ascii_formatd (buf, sizeof buf, "%.0f", ridge);
            /* TRANSLATORS: the ridge point of the roofline, in FLOP per byte */
            text = g_strdup_printf (_("ridge %s"), buf);
            draw_label (cr, &fg, 0.9, axis_x (&a, ridge) + 8, axis_y (&a, top) + 12, text, 0);
          }
      }

  /* the operators, largest first so that small ones stay on top */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n; i++)
      {
        const KsRooflineRow *row = &rows[i];
        double r, x, y;
        GdkRGBA color;

        if (!has_point (row))
          continue;
        r = point_radius (row, longest);
        if ((pass == 0) != (r >= (MIN_RADIUS + MAX_RADIUS) / 2))
          continue;
        x = axis_x (&a, row->intensity);
        y = axis_y (&a, row->tflops);
        bound_color (row->bound, &color);
        cairo_set_source_rgba (cr, color.red, color.green, color.blue, 0.65);
        cairo_new_path (cr);   /* the labels leave a current point */
        cairo_arc (cr, x, y, r, 0, 2 * G_PI);
        cairo_fill_preserve (cr);
        cairo_set_source_rgba (cr, color.red, color.green, color.blue, 1);
        cairo_set_line_width (cr, 1);
        cairo_stroke (cr);
      }
}

static gboolean
plot_query_tooltip_cb (KsRooflinePage *self,
                       int             x,
                       int             y,
                       gboolean        keyboard,
                       GtkTooltip     *tooltip)
{
  guint i = keyboard ? G_MAXUINT : point_at (self, x, y);
  const KsRooflineRow *row;
  g_autofree char *flops = NULL;
  g_autofree char *time = NULL;
  g_autofree char *text = NULL;
  guint n;

  if (i == G_MAXUINT)
    return FALSE;
  row = &ks_roofline_get_operators (self->roofline, FALSE, &n)[i];
  flops = ks_format_flops (row->flops);
  time = ks_time_format_duration (row->device_ns);
  /* TRANSLATORS: "aten::mm: 1.59 TFLOPs in 3.02 ms, 526.9 TFLOP/s, 359.5 FLOP/byte, 53 % of its roof
   * (compute-bound)" */
  text = g_strdup_printf (_("%s: %sFLOPs in %s, %.1f TFLOP/s, %.1f FLOP/byte, %.0f %% of its roof (%s)"),
                          ks_trace_string (self->trace, row->name), flops, time, row->tflops, row->intensity,
                          MAX (row->peak_pct, 0),
                          row->bound == KS_BOUND_COMPUTE ? _("compute-bound") : _("memory-bound"));
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* Marks the operator and shows its longest call. */
static void
show_operator (KsRooflinePage *self,
               guint           index)
{
  guint n;
  const KsRooflineRow *row = &ks_roofline_get_operators (self->roofline, FALSE, &n)[index];
  const KsTrack *track = &self->trace->tracks[row->longest_track];

  ks_page_highlight (KS_PAGE (self), (guint)row->name);
  ks_page_navigate (KS_PAGE (self), track->start[row->longest_slice], track->end[row->longest_slice]);
}

static void
activate_cb (KsRooflinePage *self,
             guint           position)
{
  guint i = ks_page_table_get_index_at (&self->table, position);

  if (i != G_MAXUINT && self->roofline != NULL)
    show_operator (self, i);
}

static void
plot_pressed_cb (GtkGestureClick *gesture,
                 int              n_press,
                 double           x,
                 double           y,
                 KsRooflinePage  *self)
{
  guint i = self->roofline != NULL ? point_at (self, x, y) : G_MAXUINT;
  guint position;

  if (i == G_MAXUINT)
    return;
  position = ks_page_table_find_index (&self->table, i);
  if (position != G_MAXUINT)
    {
      gtk_single_selection_set_selected (self->table.selection, position);
      /* GtkColumnView has no scroll API before GTK 4.12: its list does */
      for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->view));
           child != NULL;
           child = gtk_widget_get_next_sibling (child))
        if (GTK_IS_LIST_VIEW (child))
          gtk_widget_activate_action (child, "list.scroll-to-item", "u", position);
    }
  show_operator (self, i);
}

static gboolean
filter_row (gpointer p,
            guint    i)
{
  return TRUE;
}

/* "Hardware FLOPs utilisation of 3 steps: mean 0.4 %, 0.3 to 0.4 %", or
 * NULL without steps or a peak. */
static char *
describe_mfu (KsRoofline *roofline)
{
  guint n, counted = 0;
  const KsRooflineStep *steps = ks_roofline_get_steps (roofline, &n);
  double sum = 0, lo = G_MAXDOUBLE, hi = 0;

  for (guint i = 0; i < n; i++)
    if (steps[i].mfu_pct >= 0)
      {
        sum += steps[i].mfu_pct;
        lo = MIN (lo, steps[i].mfu_pct);
        hi = MAX (hi, steps[i].mfu_pct);
        counted++;
      }
  if (counted == 0)
    return NULL;
  /* TRANSLATORS: "Hardware FLOPs utilisation of 3 steps: mean 0.4 %, 0.3 to 0.4 %"; the
   * operators' FLOPs over each step's time, of the GPU's peak */
  return g_strdup_printf (ngettext ("Hardware FLOPs utilisation of %u step: mean %.1f %%, %.1f to %.1f %%",
                                    "Hardware FLOPs utilisation of %u steps: mean %.1f %%, %.1f to %.1f %%", counted),
                          counted, sum / counted, lo, hi);
}

static void
show_roofline (KsRooflinePage *self)
{
  const KsPeak *peak;
  g_autofree char *advice = NULL;
  g_autofree char *mfu = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  gboolean empty;
  guint n = 0;

  ks_page_table_set_report (&self->table, NULL);
  if (self->roofline == NULL)
    {
      gtk_label_set_text (self->peak_label, "");
      gtk_label_set_text (self->mfu_label, "");
      gtk_label_set_text (self->advice_label, "");
      gtk_widget_queue_draw (GTK_WIDGET (self->plot));
      return;
    }
  peak = ks_roofline_get_peak (self->roofline);
  if (ks_roofline_peak_is_known (self->roofline))
    {
      g_string_append_printf (text, _("Peak of %s (%s):"), peak->device, peak->source);
      for (guint d = 1; d < KS_N_DTYPES; d++)
        if (peak->tflops[d] > 0)
          g_string_append_printf (text, " %s %g,", ks_dtype_to_string (d), peak->tflops[d]);
      g_string_append_printf (text, _(" memory %g GB/s"), peak->gbps);
    }
  else
    g_string_append_printf (text, _("No peak is known for GPU “%s”: the rates are shown without a share of peak "
                                    "(kinescope-cli stats --peak-tflops and --peak-gbps take one)."),
                            *peak->device ? peak->device : _("none"));
  gtk_label_set_text (self->peak_label, text->str);
  mfu = describe_mfu (self->roofline);
  gtk_label_set_text (self->mfu_label, mfu != NULL ? mfu : "");
  gtk_widget_set_visible (GTK_WIDGET (self->mfu_label), mfu != NULL);
  advice = ks_roofline_get_advice (self->roofline);
  gtk_label_set_text (self->advice_label, advice != NULL ? advice : "");
  gtk_widget_set_visible (GTK_WIDGET (self->advice_label), advice != NULL);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->peak_label), text->str);
  ks_page_table_set_report (&self->table, ks_report_new_roofline_operators (self->roofline,
                                                                             ks_page_get_analysis (KS_PAGE (self)),
                                                                             FALSE));
  ks_roofline_get_operators (self->roofline, FALSE, &n);
  empty = !ks_roofline_has_shapes (self->roofline) || n == 0;
  ks_page_set_empty (KS_PAGE (self), "view-list-symbolic", empty ? _("No FLOPs") : NULL,
                     ks_roofline_has_shapes (self->roofline)
                       ? _("No operator call of this trace has a FLOP formula or bytes to count.")
                       : ks_roofline_no_shapes_text ());
  gtk_widget_queue_draw (GTK_WIDGET (self->plot));
}

static void
set_roofline (KsRooflinePage *self,
              KsRoofline     *roofline)
{
  if (g_set_object (&self->roofline, roofline))
    {
      show_roofline (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROOFLINE]);
    }
}

static void
computed_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(KsRooflinePage) self = user_data;
  g_autoptr(KsRoofline) roofline = NULL;
  g_autoptr(GError) error = NULL;

  roofline = ks_roofline_get_shared_finish (result, &error);
  /* a newer analysis replaced the one it was for */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))) || roofline == NULL)
    return;
  set_roofline (self, roofline);
}

static void
ks_roofline_page_refill (KsPage     *page,
                         KsTrace    *trace,
                         KsAnalysis *analysis)
{
  KsRooflinePage *self = KS_ROOFLINE_PAGE (page);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->trace = trace;
  set_roofline (self, NULL);
  ks_page_set_empty (page, NULL, NULL, NULL);
  if (analysis == NULL)
    return;
  self->cancellable = g_cancellable_new ();
  ks_roofline_get_shared_async (trace, analysis, self->cancellable, computed_cb, g_object_ref (self));
}

KsRoofline *
ks_roofline_page_get_roofline (KsRooflinePage *self)
{
  g_return_val_if_fail (KS_IS_ROOFLINE_PAGE (self), NULL);

  return self->roofline;
}

static void
ks_roofline_page_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  KsRooflinePage *self = KS_ROOFLINE_PAGE (object);

  switch (prop_id)
    {
    case PROP_ROOFLINE:
      g_value_set_object (value, self->roofline);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_roofline_page_dispose (GObject *object)
{
  KsRooflinePage *self = (KsRooflinePage *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  ks_page_table_clear (&self->table);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_ROOFLINE_PAGE);
  g_clear_object (&self->roofline);

  G_OBJECT_CLASS (ks_roofline_page_parent_class)->dispose (object);
}

static void
ks_roofline_page_class_init (KsRooflinePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_roofline_page_dispose;
  object_class->get_property = ks_roofline_page_get_property;
  KS_PAGE_CLASS (klass)->refill = ks_roofline_page_refill;

  properties[PROP_ROOFLINE] =
    g_param_spec_object ("roofline", NULL, NULL, KS_TYPE_ROOFLINE,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-roofline-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsRooflinePage, peak_label);
  gtk_widget_class_bind_template_child (widget_class, KsRooflinePage, plot);
  gtk_widget_class_bind_template_child (widget_class, KsRooflinePage, mfu_label);
  gtk_widget_class_bind_template_child (widget_class, KsRooflinePage, advice_label);
  gtk_widget_class_bind_template_child (widget_class, KsRooflinePage, view);
  gtk_widget_class_bind_template_callback (widget_class, activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, plot_query_tooltip_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_roofline_page_init (KsRooflinePage *self)
{
  GtkGesture *click = gtk_gesture_click_new ();
  const KsReportColumn *columns;
  guint n;

  gtk_widget_init_template (GTK_WIDGET (self));

  gtk_drawing_area_set_draw_func (self->plot, draw_cb, self, NULL);
  gtk_event_controller_set_name (GTK_EVENT_CONTROLLER (click), "ks-roofline-click");
  g_signal_connect (click, "pressed", G_CALLBACK (plot_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->plot), GTK_EVENT_CONTROLLER (click));

  ks_page_table_init (&self->table, self->view, filter_row, self);
  columns = ks_report_roofline_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  /* what fits the side panel beside the names; the rest in the header's menu */
  ks_page_table_show_columns (&self->table,
                              (const char *const[]) { "name", "device_ns", "tflops", "peak_pct", "bound", NULL });
  gtk_column_view_column_set_fixed_width (ks_page_table_get_report_column (&self->table, "name"), 150);
}

GtkWidget *
ks_roofline_page_new (void)
{
  return g_object_new (KS_TYPE_ROOFLINE_PAGE, NULL);
}
