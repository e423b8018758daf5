#!/usr/bin/env python3
# Regenerates the seed corpus of fuzz/corpus/ from a real sandbox: builds nothing itself;
# run `cargo build -p verify-sandbox` first, then `python3 fuzz/seeds.py`. Real replies
# (reply, abi_http), real requests (sandbox_request, sandbox_decode) and edge cases.
import hashlib, json, os, socket, subprocess, sys, time, urllib.parse, re
ROOT=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C=ROOT+'/fuzz/corpus'
for t in ['reply','wire','abi_http','sandbox_decode','sandbox_request','smbios','unsealed']:
    os.makedirs(f'{C}/{t}', exist_ok=True)
# smbios and unsealed: made up here, no sandbox needed.
def smbios_table(uuid, system, board, version=(3, 2)):
    def strings(items):
        out = b''.join(s.encode() + b'\0' for s in items)
        return (out or b'\0') + b'\0'
    body = bytes([0, 0x12, 0, 0, 1]) + bytes(0x12 - 5) + strings(['American Megatrends'])
    body += bytes([1, 0x1b, 1, 0, 1, 2, 0, 3]) + uuid + bytes([6, 0, 0]) + strings(system)
    body += bytes([2, 0x08, 2, 0, 1, 2, 0, 3]) + strings(board)
    body += bytes([127, 4, 3, 0]) + strings([])
    return bytes([0, version[0], version[1], 0]) + len(body).to_bytes(4, 'little') + body
uuid = bytes(range(0x10, 0x20))
full = smbios_table(uuid, ['Dell Inc.', 'OptiPlex 7090', 'SERIAL-1'], ['Dell Inc.', '0ABC12', 'BOARD-9'])
for name, data in {
    'table-3.2': full,
    'table-2.5': smbios_table(uuid, ['QEMU', 'Standard PC', ''], ['', '', ''], (2, 5)),
    'placeholder-uuid': smbios_table(bytes([0xff] * 16), ['To be filled by O.E.M.'] * 3, ['Default string'] * 3),
    'cut-short': full[:40],
    'length-too-large': full[:4] + (10 ** 6).to_bytes(4, 'little') + full[8:],
    'structure-length-2': full[:8] + bytes([1, 2, 0, 0]) + full[12:],
    'no-terminator': full[:-2],
    'header-only': full[:8],
}.items():
    save_seed = open(f'{C}/smbios/{name}', 'wb'); save_seed.write(data); save_seed.close()
verdict = {'format': 1, 'mode': 'card', 'identity': 'a' * 64, 'machine': 'B' * 32,
           'data': {'expire_at': '2099-12-31 23:59:59', 'card_type': '月卡'},
           'confirmed_at': 1764000000, 'server_time': 1764000100}
record = 'verify machine code v2\ncode=' + '0123456789ABCDEF' * 2 + '\nboard_uuid=' + 'ab' * 16 + '\ncpu=' + 'cd' * 16 + '\n'
for name, data in {
    'verdict-card': json.dumps(verdict, ensure_ascii=False).encode(),
    'verdict-user': json.dumps(dict(verdict, mode='user', data={})).encode(),
    'verdict-bad-expiry': json.dumps(dict(verdict, data={'expire_at': '2099-13-40 25:61'})).encode(),
    'record-v2': record.encode(),
    'record-unknown-key': (record + 'gpu=ef\n').encode(),
    'record-crlf': record.replace('\n', '\r\n').encode(),
}.items():
    save_seed = open(f'{C}/unsealed/{name}', 'wb'); save_seed.write(data); save_seed.close()
if os.environ.get('SEEDS_OFFLINE_ONLY'):
    sys.exit(0)
p=subprocess.Popen([ROOT+'/target/debug/verify-sandbox','--fixtures',ROOT+'/sandbox/fixtures/demo.json'],stdout=subprocess.PIPE,stderr=subprocess.STDOUT,text=True)
port=None
for line in p.stdout:
    m=re.search(r'http://127\.0\.0\.1:(\d+)',line)
    if m: port=int(m.group(1)); break
def rc4(key,data):
    S=list(range(256));j=0
    for i in range(256):
        j=(j+S[i]+key[i%len(key)])%256;S[i],S[j]=S[j],S[i]
    i=j=0;out=bytearray()
    for b in data:
        i=(i+1)%256;j=(j+S[i])%256;S[i],S[j]=S[j],S[i];out.append(b^S[(S[i]+S[j])%256])
    return bytes(out)
md5=lambda s: hashlib.md5(s.encode()).hexdigest()
enc=lambda s: urllib.parse.quote(s,safe='-_.~')
def post(path, body, headers=''):
    s=socket.create_connection(('127.0.0.1',port))
    req=(f'POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\n{headers}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n').encode()+body
    s.sendall(req); data=b''
    while True:
        d=s.recv(65536)
        if not d: break
        data+=d
    return req, data
def save(t,name,data):
    open(f'{C}/{t}/{name}','wb').write(data)
APP,KEY='10001','ABCDEFGHIJKLMNOPQRSTUVWXYZ012345'
ts=str(int(time.time()))
form=f'AppId={APP}&AppKey={KEY}&TimeStamp={ts}&Sign={md5(APP+KEY+ts+KEY)}'
req,resp=post('/api/verify',form.encode())
save('sandbox_request','init-form',b'\x02'+form.encode())
head,body=resp.split(b'\r\n\r\n',1)
save('reply','init',body)
pw=json.loads(body)['data']['api_password']
def handle(name, plaintext):
    ts=str(int(time.time()))
    data=rc4(pw.encode(),plaintext.encode()).hex().upper()
    form=f'TimeStamp={ts}&Data={data}&Sign={md5(pw+ts+data)}'
    req,resp=post('/api/verify/'+enc(pw),form.encode(),f'X-Api-Password: {pw}\r\n')
    head,body=resp.split(b'\r\n\r\n',1)
    save('reply',name,body)
    save('sandbox_request',name,b'\x00'+plaintext.encode())
    save('sandbox_decode',name,bytes([len(pw)])+pw.encode()+data.encode())
    # abi_http: a clean HTTP reply with the real body (Content-Length, close)
    save('abi_http',name,b'HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n'%len(body)+body)
    return json.loads(body)
handle('single_login','action=SingleLogin&Card=DEMO-CARD-0000-0001&Mac=3F2A9C0B7D1E4F56&DeviceName=%E7%94%B5%E8%84%91')
r=handle('card_info','action=GetCardInfo&Card=DEMO-CARD-0000-0001')
r=handle('count_login','action=SingleLogin&Card=DEMO-TIME-0000-0001&Mac=3F2A9C0B7D1E4F56')
tok=r['data'].get('token','')
handle('heartbeat',f'action=UserHeartbeat&Token={tok}&Type=card')
handle('bulletin','action=GetBulletin')
handle('variables','action=GetVariable')
handle('variable','action=GetVariable&Name=app_name')
handle('latest_version','action=GetLatestVersion&Version=1.0.0')
handle('user_login','action=UserLogin&UserName=alice&Password=alice-pass&Mac=AA-BB')
handle('user_login_refused','action=UserLogin&UserName=alice&Password=wrong&Mac=AA-BB')
handle('user_info','action=GetUserInfo&UserName=alice&Password=alice-pass')
handle('register','action=UserRegin&UserName=carol&Password=carol-pass&Mac=CC&Card=DEMO-REGN-0000-0001')
handle('recharge','action=UserRecharge&UserName=alice&Card=DEMO-RECH-0000-0001')
handle('change_bind','action=ChangeBind&UserName=alice&Password=alice-pass&Mac=DD-EE')
handle('update_password','action=UpdatePwd&UserName=bob&OldPassword=bob-pass&NewPassword=bob-pass2')
handle('social_start','action=SocialLogin&Platform=qq')
handle('unknown_action','action=NoSuchAction&x=1')
handle('card_unknown','action=SingleLogin&Card=NOPE&Mac=1')
# the wire vectors as sandbox_decode seeds
v=json.load(open(ROOT+'/core/tests/vectors/wire.json'))
for i,h in enumerate(v['handle']):
    save('sandbox_decode',f'vector-{i}',bytes([len(h['ApiPassword'])])+h['ApiPassword'].encode()+h['Data'].encode())
for i,h in enumerate(v['plaintext']):
    save('sandbox_decode',f'plaintext-{i}',b'\x00'+h['plaintext'].encode())
    save('sandbox_request',f'plaintext-{i}',b'\x00'+h['plaintext'].encode())
    # wire: bytes that arbitrary reads as strings (a start; the fuzzer builds the rest)
    save('wire',f'plaintext-{i}',h['plaintext'].encode())
# raw sandbox requests: a stale timestamp, a bad sign, no Data
save('sandbox_request','stale-ts',b'\x03TimeStamp=1&Data=00&Sign=x')
save('sandbox_request','init-bad-sign',f'\x02AppId={APP}&AppKey={KEY}&TimeStamp={ts}&Sign=0'.encode())
# abi_http edge seeds
B=b'{"code":200,"message":"ok","data":{"bulletin":"b","updated_at":"2025-01-01 12:00:00"}}'
save('abi_http','chunked',b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n'%len(B)+B+b'\r\n0\r\n\r\n')
save('abi_http','html-502',b'HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 28\r\n\r\n<html>502 Bad Gateway</html>')
save('abi_http','redirect',b'HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\n\r\n')
save('abi_http','refused-1001',b'HTTP/1.1 200 OK\r\nContent-Length: 44\r\n\r\n{"code":1001,"message":"gone","data":null}  ')
save('abi_http','skew-1014',b'HTTP/1.1 200 OK\r\nDate: Mon, 23 Nov 2026 14:00:00 GMT\r\nContent-Length: 42\r\n\r\n{"code":1014,"message":"ts","data":null}  ')
save('abi_http','short-length',b'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n'+B)
save('abi_http','no-length',b'HTTP/1.0 200 OK\r\n\r\n'+B)
save('abi_http','gbk-charset',b'HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=gbk\r\nContent-Length: %d\r\n\r\n'%len(B)+B)
for name,b in [('array',b'[1,2]'),('deep',b'['*200+b']'*200),('huge-code',b'{"code":99999999999,"message":"x"}'),
               ('nul',b'{"code":200,"message":"a\\u0000b","data":{"remark":"\\u0000"}}'),('empty-data',b'{"code":200,"message":"ok","data":[]}'),
               ('invalid-utf8',b'{"code":200,"message":"\xff\xfe","data":null}'),('pointers',b'/data/a~1b\n{"code":200,"message":"","data":{"a/b":[1,{"c":true}],"variables":{"k":"v"}}}')]:
    save('reply',name,b)
p.terminate()
print('ok', port)
