"""Per-language allow-lists of plotting calls, and the calls that never count.

A call counts toward plotting-API F1 when its bare name (``plt.plot`` -> ``plot``,
``ggplot2::geom_point`` -> ``geom_point``, ``\\addplot`` -> ``addplot``) is on its language's
list; the exclusions (showing, saving, closing devices, loading libraries) are not plotting.
"""

from __future__ import annotations

from refig_metric_code.languages import Language


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PYTHON = _names(
    "plot scatter bar barh hist hist2d boxplot violinplot errorbar fill fill_between "
    "fill_betweenx stackplot stem step pie polar imshow pcolor pcolormesh contour contourf "
    "quiver streamplot hexbin axhline axvline axhspan axvspan hlines vlines annotate text "
    "title suptitle xlabel ylabel zlabel legend grid xlim ylim xticks yticks xscale yscale "
    "colorbar subplots subplot subplot2grid add_subplot add_axes figure set_title set_xlabel "
    "set_ylabel set_xlim set_ylim set_xticks set_yticks set_xticklabels set_yticklabels "
    "set_xscale set_yscale set_aspect tick_params twinx twiny tight_layout subplots_adjust "
    "table arrow add_patch add_artist plot_surface plot_wireframe plot_trisurf scatter3D "
    "contour3D bar3d tricontour tricontourf triplot matshow spy loglog semilogx semilogy "
    "eventplot broken_barh violin bxp ecdf stairs histplot kdeplot ecdfplot rugplot displot "
    "scatterplot lineplot relplot barplot countplot boxplot boxenplot violinplot stripplot "
    "swarmplot pointplot catplot heatmap clustermap regplot lmplot residplot jointplot "
    "pairplot set_theme set_style set_palette despine"
)

_MATLAB = _names(
    "plot plot3 scatter scatter3 bar barh bar3 histogram histogram2 hist area pie pie3 stem "
    "stairs errorbar fill fill3 patch line surf surfc mesh meshc contour contourf contour3 "
    "quiver quiver3 image imagesc pcolor polarplot polar compass feather rose semilogx "
    "semilogy loglog fplot fsurf fmesh fcontour ezplot boxplot heatmap xline yline text title "
    "subtitle xlabel ylabel zlabel legend grid axis xlim ylim zlim xticks yticks zticks "
    "xticklabels yticklabels colorbar colormap subplot tiledlayout nexttile figure hold box "
    "view shading lighting camlight annotation rectangle sgtitle yyaxis daspect pbaspect set "
    "gca gcf caxis clim ribbon waterfall"
)

_R = _names(
    "plot lines points abline barplot hist boxplot pie polygon rect segments arrows text "
    "mtext legend title axis box grid par layout matplot curve image contour filled.contour "
    "persp symbols stripchart dotchart mosaicplot pairs coplot smoothScatter rug polypath "
    "ggplot aes geom_point geom_line geom_bar geom_col geom_histogram geom_boxplot "
    "geom_violin geom_density geom_area geom_ribbon geom_errorbar geom_errorbarh geom_smooth "
    "geom_text geom_label geom_tile geom_raster geom_rect geom_segment geom_path geom_polygon "
    "geom_hline geom_vline geom_abline geom_step geom_jitter geom_count geom_dotplot "
    "geom_freqpoly geom_sf geom_contour geom_contour_filled geom_hex geom_bin2d geom_curve "
    "geom_pointrange geom_linerange geom_crossbar geom_spoke geom_map stat_summary "
    "stat_density_2d stat_ecdf facet_wrap facet_grid coord_flip coord_polar coord_cartesian "
    "coord_fixed coord_sf scale_x_continuous scale_y_continuous scale_x_discrete "
    "scale_y_discrete scale_x_log10 scale_y_log10 scale_x_date scale_colour_manual "
    "scale_color_manual scale_fill_manual scale_fill_gradient scale_fill_gradient2 "
    "scale_colour_gradient scale_color_gradient scale_fill_viridis_c scale_fill_viridis_d "
    "scale_color_viridis_c scale_color_viridis_d scale_fill_brewer scale_colour_brewer "
    "scale_color_brewer scale_size scale_alpha scale_shape_manual scale_linetype_manual labs "
    "xlab ylab ggtitle theme theme_minimal theme_bw theme_classic theme_void theme_light "
    "theme_gray theme_grey element_text element_line element_rect element_blank guides "
    "guide_legend annotate xlim ylim lims expand_limits xyplot bwplot densityplot histogram "
    "levelplot dotplot barchart stripplot splom wireframe cloud contourplot grid.newpage "
    "grid.rect grid.lines grid.points grid.text grid.circle grid.polygon grid.segments "
    "viewport pushViewport popViewport"
)

_LATEX = _names(
    "tikzpicture axis semilogxaxis semilogyaxis loglogaxis polaraxis groupplot scope addplot "
    "addplot3 addlegendentry legend draw fill filldraw path node coordinate shade shadedraw "
    "clip pie foreach pgfplotsset tikzset usetikzlibrary pgfmathsetmacro nextgroupplot matrix "
    "graph pic datavisualization"
)

ALLOWED: dict[Language, frozenset[str]] = {
    Language.PYTHON: _PYTHON,
    Language.MATLAB: _MATLAB,
    Language.R: _R,
    Language.LATEX: _LATEX,
}

EXCLUDED: dict[Language, frozenset[str]] = {
    Language.PYTHON: frozenset({"show", "savefig", "close", "clf", "cla", "ion", "ioff",
                                "pause", "draw", "use"}),
    Language.MATLAB: frozenset({"print", "saveas", "exportgraphics", "close", "clc", "clear",
                                "drawnow", "pause", "pkg", "disp"}),
    Language.R: frozenset({"dev.off", "png", "pdf", "jpeg", "svg", "ggsave", "library",
                           "require", "print", "install.packages", "suppressPackageStartupMessages",
                           "set.seed", "graphics.off"}),
    Language.LATEX: frozenset({"documentclass", "usepackage", "begin", "end", "document",
                               "includegraphics", "standalone"}),
}
