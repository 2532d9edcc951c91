"""FigCodeBench's plotting-API lists, per language: the names that count toward plotting-API F1
and the ones that never do (showing, saving, devices, loading), as its
``compute_code_oriented_metrics.py`` lists them. R also counts any name starting with one of
:data:`R_PREFIXES`; LaTeX lists macros and environments apart."""

from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


PYTHON = _names(
    "figure axes subplot subplots subplot2grid subplot_mosaic twinx twiny add_axes add_subplot "
    "subfigures add_subfigure add_gridspec subplots_adjust tight_layout align_labels "
    "align_xlabels align_ylabels inset_axes secondary_xaxis secondary_yaxis plot plot_date step "
    "stairs loglog semilogx semilogy scatter errorbar bar barh bar_label stem eventplot pie "
    "stackplot broken_barh fill fill_between fill_betweenx hist hist2d boxplot violinplot imshow "
    "matshow pcolor pcolormesh pcolorfast hexbin specgram spy contour contourf tricontour "
    "tricontourf tripcolor triplot quiver quiverkey barbs streamplot plot3D scatter3D "
    "plot_surface plot_wireframe plot_trisurf contour3D bar3d text3D text annotate title "
    "suptitle xlabel ylabel figtext legend table set_title set_xlabel set_ylabel supxlabel "
    "supylabel axis grid box margins autoscale tick_params ticklabel_format minorticks_on "
    "minorticks_off xlim ylim xscale yscale xticks yticks set_xlim set_ylim set_zlim "
    "set_xscale set_yscale set_zscale set_xticks set_yticks set_zticks set_xticklabels "
    "set_yticklabels set_zticklabels set_aspect set_adjustable set_axis_off set_axis_on "
    "set_rmax set_rmin set_rorigin set_rticks set_rlabel_position set_thetamin set_thetamax "
    "axhline axvline axline axhspan axvspan hlines vlines arrow Line2D Arc Arrow Circle "
    "ConnectionPatch Ellipse FancyArrowPatch FancyBboxPatch PathPatch Polygon Rectangle Wedge "
    "add_artist add_collection add_container add_image add_line add_patch add_table colorbar "
    "colormap set_cmap clim setp set_facecolor set_prop_cycle set_label set_theme set_style "
    "set_context despine move_legend scatterplot lineplot relplot histplot kdeplot ecdfplot "
    "rugplot displot stripplot swarmplot boxenplot pointplot barplot countplot catplot regplot "
    "residplot lmplot heatmap clustermap pairplot jointplot FacetGrid PairGrid JointGrid map "
    "map_dataframe map_diag map_lower map_upper"
)
PYTHON_EXCLUDED = _names("show savefig load_dataset color_palette")

MATLAB = _names(
    "figure uifigure axes uiaxes polaraxes geoaxes subplot tiledlayout nexttile yyaxis hold "
    "plot plot3 fplot fplot3 fimplicit fimplicit3 loglog semilogx semilogy stairs area "
    "stackedplot errorbar scatter scatter3 binscatter scatterhistogram swarmchart swarmchart3 "
    "bubblechart bubblechart3 bubblecloud bar barh bar3 bar3h stem stem3 pareto histogram "
    "histogram2 boxchart boxplot violinplot raincloudplot pie pie3 piechart donutchart dotchart "
    "wordcloud polarplot polarscatter polarhistogram polarbubblechart fpolarplot compass "
    "compassplot geoplot geoscatter geobubble geodensityplot geolimits geobasemap contour "
    "contourf contour3 fcontour contourslice surf surfc surfl fsurf mesh meshc meshz fmesh "
    "waterfall ribbon pcolor slice isosurface isonormals isocaps quiver quiver3 feather "
    "streamline streamslice streamtube streamribbon streamparticles coneplot image imagesc "
    "imshow montage imtile line patch surface fill fill3 rectangle viscircles title subtitle "
    "sgtitle xlabel ylabel zlabel legend bubblelegend text annotation xline yline xregion "
    "yregion constantplane datatip texlabel axis xlim ylim zlim xticks yticks zticks "
    "xticklabels yticklabels zticklabels grid box colorbar colormap clim caxis view daspect "
    "pbaspect camlight lighting material shading alpha fontname fontsize set"
)
MATLAB_EXCLUDED = _names("drawnow saveas savefig exportgraphics print close openfig")

R = _names(
    "plot.new plot.window frame par layout split.screen screen close.screen plot curve matplot "
    "pairs coplot barplot dotchart hist boxplot bxp pie mosaicplot assocplot fourfoldplot "
    "spineplot stripchart sunflowerplot smoothScatter contour filled.contour image persp stars "
    "symbols stem points lines segments arrows abline polygon polypath rect text mtext title "
    "axis box grid legend rug rasterImage xspline ggplot qplot quickplot aes aes_ guides labs "
    "xlab ylab ggtitle annotate annotation_custom annotation_logticks annotation_map theme "
    "theme_gray theme_grey theme_bw theme_linedraw theme_light theme_dark theme_minimal "
    "theme_classic theme_void theme_set theme_update theme_replace element_text element_line "
    "element_rect element_blank element_point margin grid.newpage grid.layout viewport "
    "pushViewport popViewport upViewport downViewport seekViewport grid.draw grid.points "
    "grid.lines grid.polyline grid.segments grid.arrows grid.rect grid.roundrect grid.circle "
    "grid.ellipse grid.polygon grid.xspline grid.curve grid.text grid.raster grid.grill xyplot "
    "bwplot barchart histogram densityplot stripplot qq qqmath splom levelplot contourplot "
    "cloud wireframe parallelplot panel.xyplot panel.points panel.lines panel.abline "
    "panel.grid panel.text panel.polygon panel.rect panel.segments panel.arrows panel.smooth "
    "panel.loess panel.levelplot panel.contourplot trellis.par.set update.trellis"
)
R_PREFIXES = ("geom_", "stat_", "scale_", "coord_", "facet_", "guide_")
R_EXCLUDED = _names(
    "png jpeg tiff bmp pdf svg dev.new dev.off ggsave print.ggplot plotly_build library require "
    "source"
)

LATEX_MACROS = _names(
    "draw path fill filldraw shade shadedraw clip pattern node coordinate matrix graph pic "
    "addplot addplot+ addplot3 addplot3+ addlegendentry addlegendimage legend pgfplotsset "
    "pgfplotstabletypeset pgfplotstablevertcat pgfplotstablesort tikzset tikzstyle pgfkeys "
    "pgfkeysalso pgftransformshift pgftransformxshift pgftransformyshift pgftransformscale "
    "pgftransformxscale pgftransformyscale pgftransformrotate pgfpathmoveto pgfpathlineto "
    "pgfpathcurveto pgfpathquadraticcurveto pgfpathrectangle pgfpathcircle pgfpathellipse "
    "pgfpatharc pgfpathclose pgfusepath pgftext pgfnode pgfnodeconnline pgfshadepath pgfimage "
    "includegraphics resizebox scalebox rotatebox reflectbox"
)
LATEX_ENVIRONMENTS = _names(
    "tikzpicture axis semilogxaxis semilogyaxis loglogaxis polaraxis ternaryaxis smithchart "
    "groupplot pgfpicture"
)
