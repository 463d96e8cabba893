# SPDX-License-Identifier: GPL-3.0-or-later
"""Adds to DB a calibration of a GPU ("Test GPU") whose curves are the first CPU calibration's and
whose measured start (the driver's and its context's) is START seconds: what --auto's CPU first
weighs, on a machine without a GPU.  Usage: fake_gpu_calibration.py DB START"""
import sqlite3, sys
db, start = sys.argv[1], float(sys.argv[2])
c = sqlite3.connect(db)
cols = [r[1] for r in c.execute('pragma table_info(devices)')][1:]
row = c.execute(f"select {','.join(cols)} from devices where kind='cpu'").fetchone()
d = dict(zip(cols, row)); d.update(name='cuda:0', model='Test GPU', kind='cuda', threads=0)
cur = c.execute(f"insert into devices ({','.join(cols)}) values ({','.join('?'*len(cols))})", [d[k] for k in cols]); dev = cur.lastrowid
ccols = [r[1] for r in c.execute('pragma table_info(calibrations)')][2:]
cur = c.execute(f"insert into calibrations (device_id,{','.join(ccols)}) select ?,{','.join(ccols)} from calibrations where id=1", (dev,)); cal = cur.lastrowid
for t in ('fits', 'coefficients'):
    tc = [r[1] for r in c.execute(f'pragma table_info({t})')][2:]
    c.execute(f"insert into {t} (calibration_id,{','.join(tc)}) select ?,{','.join(tc)} from {t} where calibration_id=1", (cal,))
c.execute("insert into samples (calibration_id, kernel, precision, m, bytes, seconds) values (?, 'start', 0, 0, 0, ?)", (cal, start))
c.commit()
