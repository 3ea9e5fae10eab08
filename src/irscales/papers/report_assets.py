"""The HTML report's style sheet and its one script (:mod:`irscales.papers.report_html` lays the page out):
one offline file, nothing fetched."""

from __future__ import annotations

__all__ = ["STATUS_CLASS", "CARD_LABEL", "STYLE", "SCRIPT"]

#: CSS class of each status (its colour in :data:`STYLE`).
STATUS_CLASS = {"reproduced exhaustively": "st-exh", "reproduced from printed inputs": "st-prt",
                "reproduced on real data": "st-real", "agrees within printing": "st-print",
                "depends on reading": "st-read", "unresolved": "st-unres", "differs": "st-diff",
                "simulated only": "st-sim", "not attempted": "st-na"}
#: Short labels of the statuses on the cards (same order as :data:`irscales.papers.items.STATUSES`).
CARD_LABEL = {"reproduced exhaustively": "exhaustively", "reproduced from printed inputs": "from printed inputs",
              "reproduced on real data": "on real data", "agrees within printing": "within the paper's printing",
              "depends on reading": "depend on the reading", "unresolved": "unresolved (settings unknown)",
              "differs": "differ (errata)",
              "simulated only": "simulated only", "not attempted": "not attempted"}

STYLE = """
body{font-family:system-ui,sans-serif;max-width:1280px;margin:auto;padding:0 12px;color:#222;font-size:14px}
h1{font-size:22px;margin:10px 0 4px}h2{border-bottom:2px solid #444;margin-top:36px}h3{margin:22px 0 4px}
a{color:#0645ad}nav a{margin-right:12px}.muted{color:#666}.cap{color:#444;font-style:italic;margin:2px 0 8px}
.legend span{display:inline-block;padding:1px 6px;margin:2px 4px 2px 0;border-radius:3px;font-size:12px}
.st-exh{background:#b9e4c0}.st-prt{background:#c6e8f2}.st-real{background:#b3cdf5}.st-diff{background:#f7b2ae}
.st-print{background:#e8efb0}.st-read{background:#e3d3f0}.st-unres{background:#f5d9a8}.sources li{margin:2px 0}
.st-sim{background:#e6e6e6}.st-na{background:#fff;outline:1px dashed #999;outline-offset:-1px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(225px,1fr));gap:10px}
.card{border:1px solid #bbb;border-radius:6px;padding:8px 10px;font-size:13px}
.card h3{margin:0 0 6px;font-size:15px}.card p{margin:6px 0 0;font-size:12px;overflow-wrap:anywhere}
.bar{display:flex;height:10px;border-radius:3px;overflow:hidden;margin:4px 0}
.card table{border-collapse:collapse;width:100%}.card td{padding:0 4px}.card td.n{text-align:right;font-weight:bold}
.card .key{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
table.items,table.grid,table.sortable{border-collapse:collapse;font-size:12px;margin:4px 0}
table.items td,table.items th,table.sortable td,table.sortable th{border:1px solid #ccc;padding:2px 5px;vertical-align:top}
table.sortable th{cursor:pointer;background:#f3f3f3}table.sortable th:after{content:" \\2195";color:#999}
table.grid td,table.grid th{border:1px solid #fff;padding:1px 4px;text-align:right;white-space:nowrap}
table.grid th{background:#f3f3f3;font-weight:normal}table.grid th.block{text-align:left;font-weight:bold}
table.grid td small{display:block;color:#333;font-size:10px}
.unit{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}.unit>.ev{flex:1 1 420px;min-width:0;overflow-x:auto}
.unit>.figs{flex:0 1 auto;max-width:100%;display:flex;flex-wrap:wrap;gap:10px}.figs figure{margin:0;max-width:100%}
.figs img{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{font-size:11px;color:#555}details{margin:4px 0}summary{cursor:pointer}
td.note{max-width:520px}
.analogue{border-left:5px double #5b7fb0;padding:0 0 4px 12px;margin-top:28px}.analogue .label{font-size:15px}
.analogue ul.findings li{margin:3px 0}.analogue-link{margin:2px 0 6px}
"""

# sorts the differs table by a clicked column (numbers by data-v) and records how many images decoded
SCRIPT = """
document.addEventListener('click',function(e){var th=e.target.closest('table.sortable th');if(!th)return;
var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,asc=th.dataset.asc!=='1';th.dataset.asc=asc?'1':'0';
var key=function(r){var c=r.cells[i],v=c.dataset.v;return v!==undefined?parseFloat(v):c.textContent;};
Array.from(b.rows).sort(function(x,y){var a=key(x),c=key(y);if(typeof a==='number'&&isNaN(a))return 1;
if(typeof c==='number'&&isNaN(c))return -1;return (a<c?-1:a>c?1:0)*(asc?1:-1);}).forEach(function(r){b.appendChild(r);});});
window.addEventListener('load',function(){var im=document.images,n=0;for(var k=0;k<im.length;k++){
if(im[k].complete&&im[k].naturalWidth>0)n++;}document.body.setAttribute('data-images-loaded',n+'/'+im.length);});
"""
