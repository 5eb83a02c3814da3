#!/usr/bin/env python3
"""Writes tests/schemas/sets.tsv: one row per (schema, instance) of the schema test sets, with
xmlschema's verdict of the day in the "expected" column (tests/schema_oracles.rs checks that the
oracle still gives it). The rows are listed here by hand, set by set; see tests/schemas/README.md
for the format. Run from anywhere: target/venv/bin/python interop/xsd/make_sets.py
"""

import glob
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
os.chdir(ROOT)
rows=[]
C='../shared/corpus/'
inv='exi_w3c_testsuite/data/Invoice/'
for i in ['inv1','inv10','inv100','inv1000']:
    rows.append(('invoice', C+inv+'sm-inv.xsd', '-', 'http://www.sun.com/schema/spidermarkexpress/sm-inv', C+inv+i+'.xml'))
U='tests/schemas/ubl21/'
for d,inst in [('Invoice','UBL-Invoice-2.1-Example.xml'),('Invoice','UBL-Invoice-2.1-Example-Trivial.xml'),('Order','UBL-Order-2.1-Example.xml'),('FreightInvoice','UBL-FreightInvoice-2.1-Example.xml')]:
    src = (C+'ubl/'+inst+'|' if os.path.exists(C+'ubl/'+inst) else '') + U+'instances/'+inst
    rows.append(('ubl21', U+'xsdrt/maindoc/UBL-%s-2.1.xsd'%d, '-', 'urn:oasis:names:specification:ubl:schema:xsd:%s-2'%d, src))
B='tests/schemas/bbf-dm/'
for f in sorted(glob.glob(B+'instances/*.xml')):
    rows.append(('bbf-dm', B+'bbf-dm.xsd', B+'catalog.tsv', 'urn:broadband-forum-org:cwmp:datamodel-1-8', f))
F='tests/schemas/fpml4/'
for f in sorted(glob.glob(F+'instances/*.xml')):
    b=os.path.basename(f)
    if b=='ird_ex26_fxnotional_swap_with_cfs.xml':
        f=C+'exi_w3c_testsuite/data/FpML/'+b+'|'+f
    rows.append(('fpml4', F+'fpml-main-4-0.xsd', '-', 'http://www.fpml.org/2003/FpML-4-0', f))
rows.append(('fpml4', F+'fpml-main-4-0.xsd', '-', 'http://www.fpml.org/2003/FpML-4-0', C+'exi_openexi/eqs40_ex01_single_underlyer_execution.xml'))
D='tests/schemas/uddi3/'
for b in ['juddi_tck_v3_businessEntitySigned.xml','juddi_root_BusinessEntity.xml','juddi_tck_v3_joepublisher_businessEntity.xml','juddi_UDDI_tModels.xml']:
    src = C+'uddi/'+b + ('|'+D+'instances/'+b if os.path.exists(D+'instances/'+b) else '')
    rows.append(('uddi3', D+'uddi_v3.xsd', D+'catalog.tsv', 'urn:uddi-org:api_v3', src))
G='tests/schemas/gmti/'
rows.append(('gmti', G+'gmti.xsd', '-', '', C+'exi_exificient/gmti_useme.xml'))
X=C+'exi_exificient/XMLSchema.xsd'
for f in [C+'exi_exificient/XMLSchema.xsd', C+inv+'CoreComponentTypes.xsd', C+inv+'sm-common.xsd', C+inv+'sm-inv.xsd', C+'iot_style/xpdl20_TC-1025_schema_20_2005-09-07_xpdl.xsd'] + sorted(glob.glob('tests/schemas/*/*.xsd')+glob.glob('tests/schemas/*/*/*/*.xsd')):
    rows.append(('xmlschema', X, 'tests/schemas/xmlschema/catalog.tsv', 'http://www.w3.org/2001/XMLSchema', f))
def first(p):
    for a in p.split('|'):
        if os.path.exists(a): return a
    return None
req=''.join('%s\t%s\t%s\n'%(first(r[1]),first(r[4]),'' if r[2]=='-' else r[2]) for r in rows)
out=subprocess.run([sys.executable,'interop/xsd/validate.py'],input=req,capture_output=True,text=True).stdout.splitlines()
with open('tests/schemas/sets.tsv','w') as f:
    f.write('set\tschema\tcatalog\tnamespace\tinstance\texpected\n')
    for r,o in zip(rows,out):
        v=o.split('\t')[0]
        assert v in ('valid','invalid'), (r,o)
        f.write('\t'.join(r)+'\t'+v+'\n')
        if v!='valid': print(r[4], o[:200])
